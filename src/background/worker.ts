/**
 * The worker (docs/architecture.md#the-queue-and-its-fencing): on the background loop (`loop.ts`), woken by `JOBS_CHANNEL`, a
 * run ending, or the slow fallback poll, it claims jobs up to its free slots (`claims.ts`, bounded
 * by `capacity.ts`) and runs each (`run/run.ts`), renewing their leases (`heartbeat.ts`).
 * `stop` stops claiming, lets running jobs finish within the grace period, then stops them and
 * hands their jobs back to the queue. At start it names itself in the data directory and takes back
 * at once the jobs of workers of that directory whose process died (background/registry.ts).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../log.js';
import type { ActiveRun } from '../run/run.js';
import type { RunDependencies } from '../run/run-context.js';
import { JOBS_CHANNEL } from '../store/channels.js';
import { runCapacity } from './capacity.js';
import { claimPass } from './claims.js';
import { createHeartbeat } from './heartbeat.js';
import { backgroundLoop } from './loop.js';
import { goneWorkers, registerWorker, type WorkerEntry } from './registry.js';

/** What each run gets (`RunDependencies`), but the worker's id, which is made here unless given. */
export interface WorkerOptions extends Omit<RunDependencies, 'workerId'> {
  /** Names the worker in leases and logs; unique by default. */
  id?: string;
  /** Claims at most this many jobs in all (`agentjobs worker --max-jobs`); then `finished` resolves. */
  maxJobs?: number | undefined;
}

/** A job worker of one process. */
export interface Worker {
  readonly id: string;
  /** Jobs running now. */
  readonly running: number;
  /**
   * With `maxJobs`: resolves once that many jobs were claimed and their runs are over (the worker
   * claims no more). Without: never.
   */
  readonly finished: Promise<void>;
  /** Whether the lease heartbeat has not run for a while: the worker is stuck (`/healthz`). */
  stalled(): boolean;
  /** Starts listening and claiming; resolves once the first claim was tried. */
  start(): Promise<void>;
  /**
   * Stops claiming, waits up to `graceMs` (default: the config's) for running jobs, then stops
   * them and hands their jobs back to the queue. Resolves when every run is over.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /**
   * The process exits now, on a person's word (a second Ctrl-C): the next start takes its jobs
   * back without counting a lost attempt, since their runs did nothing wrong. Synchronous.
   */
  stoppedAtOnce(): void;
}

export function createWorker(options: WorkerOptions): Worker {
  const { config, store } = options;
  const id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const logger = options.logger.child({ worker: id });
  const deps: RunDependencies = {
    config,
    store,
    logger,
    runAgent: options.runAgent,
    resolveModel: options.resolveModel,
    hosts: options.hosts,
    workerId: id,
    metrics: options.metrics,
  };
  // Admission: never more runs than the process's limits allow (capacity.ts); the rest wait queued.
  const concurrency = runCapacity(config.worker.concurrency);
  const runs = new Map<string, ActiveRun>();
  // With --max-jobs, how many more it may claim; the last run's end resolves `finished`.
  let claimable = options.maxJobs ?? Number.POSITIVE_INFINITY;
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const loop = backgroundLoop({
    name: 'claiming jobs',
    logger,
    pollMs: config.worker.pollMs,
    listen: { db: store.db, channel: JOBS_CHANNEL },
    pass: claimPass({
      deps,
      runs,
      concurrency,
      claimable: () => claimable,
      onClaimed: (count) => {
        claimable -= count;
      },
      onRunEnded: () => {
        if (claimable <= 0 && runs.size === 0) finish();
        void loop.wake();
      },
    }),
  });
  const heartbeat = createHeartbeat({ store, logger, workerId: id, runs, ...config.worker });
  let entry: WorkerEntry | null = null;
  let started = false;
  let stopping: Promise<void> | null = null;

  return {
    id,
    get running() {
      return runs.size;
    },
    finished,
    stalled: () => heartbeat.stalled(),

    async start() {
      if (started) throw new Error('A worker starts only once.');
      started = true;
      // Named in the data directory before the first claim, so that a later start knows its jobs
      // if this process dies; then the jobs of workers of this directory that died go back at once.
      entry = await registerWorker(config.dataDir, id);
      await reclaimFromGone(options, logger);
      await heartbeat.start();
      if (concurrency < config.worker.concurrency)
        logger.warn(
          { configured: config.worker.concurrency, concurrency },
          "AGENTJOBS_WORKER_CONCURRENCY is more than this process's limits allow (open files, processes); holding fewer jobs at once",
        );
      logger.info(
        {
          concurrency,
          projectConcurrency: config.worker.projectConcurrency,
          maxJobs: options.maxJobs ?? null,
        },
        'worker started',
      );
      await loop.start();
    },

    stoppedAtOnce() {
      entry?.markStoppedAtOnce();
    },

    stop(stopOptions = {}) {
      stopping ??= (async () => {
        await loop.stop();
        await drain(runs, stopOptions.graceMs ?? config.worker.shutdownGraceMs, logger);
        await heartbeat.stop();
        await entry?.unregister();
        logger.info('worker stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Returns to the queue the jobs of the workers of this data directory whose process is gone
 * (background/registry.ts), counting a lost attempt each unless a person stopped the worker at once
 * (store/queue/reclaim.ts). When the database cannot be reached, their leases expire as they
 * would have; their files stay for the next start.
 */
async function reclaimFromGone(options: WorkerOptions, logger: Logger): Promise<void> {
  const gone = await goneWorkers(options.config.dataDir);
  if (gone.length === 0) return;
  try {
    for (const stoppedAtOnce of [false, true]) {
      const workers = gone
        .filter((worker) => worker.stoppedAtOnce === stoppedAtOnce)
        .map((worker) => worker.worker);
      if (workers.length === 0) continue;
      const { requeued, failed } = await options.store.queue.reclaimFromGone(workers, {
        counted: !stoppedAtOnce,
      });
      logger.warn(
        { workers, stoppedAtOnce, requeued, failed },
        'reclaimed the jobs of workers of this data directory that are gone',
      );
    }
    await Promise.all(gone.map((worker) => worker.forget()));
  } catch (error) {
    logger.warn({ err: error }, 'could not reclaim the jobs of gone workers; their leases expire instead');
  }
}

/**
 * The shutdown of the runs: waits up to `graceMs` for them to finish, then stops the rest, which
 * hand their jobs back to the queue. The heartbeat keeps their leases meanwhile.
 */
async function drain(runs: ReadonlyMap<string, ActiveRun>, graceMs: number, logger: Logger): Promise<void> {
  const allDone = () => Promise.all([...runs.values()].map((run) => run.done));
  if (runs.size > 0) {
    logger.info({ jobs: runs.size, graceMs }, 'waiting for running jobs to finish');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allDone(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
  if (runs.size > 0) {
    logger.info({ jobs: runs.size }, 'stopping running jobs and handing them back');
    for (const run of runs.values()) run.stop('shutdown');
    await allDone();
  }
}
