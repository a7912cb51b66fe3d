/**
 * The worker (DESIGN section 4): claims jobs up to its free slots whenever it is woken (a
 * notification on `JOBS_CHANNEL`, a run ending, or the slow fallback poll), returns expired leases
 * to the queue, and runs each claimed job (`run.ts`). `stop` stops claiming, lets running jobs
 * finish within the grace period, then stops them and hands their jobs back to the queue.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { JOBS_CHANNEL } from '../store/channels.js';
import type { Unlisten } from '../store/notify.js';
import { runCapacity } from './capacity.js';
import { type ActiveRun, startRun } from '../worker/run.js';
import type { RunDependencies } from '../worker/run-context.js';

/** The first retry of a failed claim; each next waits twice as long, up to the poll interval. */
const RETRY_MIN_MS = 250;

/** What each run gets (`RunDependencies`), but the worker's id, which is made here unless given. */
export interface WorkerOptions extends Omit<RunDependencies, 'workerId'> {
  /** Names the worker in leases and logs; unique by default. */
  id?: string;
}

export interface Worker {
  readonly id: string;
  /** Jobs running now. */
  readonly running: number;
  /** Starts listening and claiming; resolves once the first claim was tried. */
  start(): Promise<void>;
  /**
   * Stops claiming, waits up to `graceMs` (default: the config's) for running jobs, then stops
   * them and hands their jobs back to the queue. Resolves when every run is over.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
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
  const { projectConcurrency, leaseMs, pollMs, heartbeatMs } = config.worker;
  // Admission: never more runs than the process's limits allow (capacity.ts); the rest wait queued.
  const concurrency = runCapacity(config.worker.concurrency);
  const waitingMessage = `Waiting for a free worker slot: every slot is taken (${concurrency} jobs at once per worker).`;
  // Expired leases are rare; looking for them on every wake-up would cost a write transaction each.
  const reclaimEveryMs = Math.min(pollMs, 1000);

  const runs = new Map<string, ActiveRun>();
  let state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  let ticking: Promise<void> | null = null;
  let again = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let heartbeatTimer: NodeJS.Timeout | null = null;
  let unlisten: Unlisten | null = null;
  let lastReclaim = 0;
  let lastWaitingNote = 0;
  let stopping: Promise<void> | null = null;
  // Claiming while the database is away: since when, and the next retry.
  let failingSince: number | null = null;
  let retryDelay = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | null = null;

  /**
   * Renews the leases of every run in one statement (store.queue.renewLeases), every `heartbeatMs`;
   * a run whose lease no longer holds (lost, or its job archived) is stopped. While the database is
   * away it keeps trying for up to a lease's length, then warns and tries again at the next beat.
   */
  async function beat(): Promise<void> {
    const held = [...runs.values()];
    if (held.length === 0) return;
    try {
      const lost = await store.queue.renewLeases(
        id,
        held.map((run) => run.lease),
        leaseMs,
      );
      for (const { lease, reason } of lost) {
        const run = runs.get(`${lease.jobId}:${lease.attempt}`);
        if (!run) continue; // ended meanwhile
        logger.warn(
          { jobId: lease.jobId, attempt: lease.attempt, reason },
          'heartbeat: the run no longer holds the job',
        );
        run.stop(reason);
      }
    } catch (error) {
      logger.warn({ err: error }, 'heartbeat failed');
    }
  }

  function scheduleBeat(): void {
    heartbeatTimer = setTimeout(async () => {
      await beat();
      if (state === 'running' || state === 'stopping') scheduleBeat();
    }, heartbeatMs);
  }

  /** One round: reclaim (now and then), then claim up to the free slots and start the runs. */
  async function claimRound(): Promise<void> {
    if (Date.now() - lastReclaim >= reclaimEveryMs) {
      lastReclaim = Date.now();
      const { requeued, failed } = await store.queue.reclaimExpired();
      if (requeued.length + failed.length > 0) logger.warn({ requeued, failed }, 'reclaimed expired leases');
    }
    const free = concurrency - runs.size;
    const claimed =
      free <= 0
        ? []
        : await store.queue.claim({
            owner: id,
            limit: free,
            perProject: projectConcurrency,
            leaseMs,
          });
    // Full: jobs left in the queue are told why they wait (once each; at most once a second here).
    if (claimed.length === Math.max(free, 0) && Date.now() - lastWaitingNote >= reclaimEveryMs) {
      lastWaitingNote = Date.now();
      await store.queue.noteWaiting('capacity', waitingMessage);
    }
    for (const job of claimed) {
      const key = `${job.job.id}:${job.attempt}`;
      // This worker still runs an older attempt (its lease expired and came back to us): that
      // attempt is lost for sure, so stop it, and start the new one once it has cleaned up.
      const older = [...runs.values()].find((run) => run.jobId === job.job.id);
      older?.stop('lost');
      const run = startRun(deps, job, older?.done);
      runs.set(key, run);
      void run.done.then(() => {
        runs.delete(key);
        void tick();
      });
    }
  }

  /**
   * A claim round failed (the database is away, say): the runs carry on, and claiming is tried
   * again with backoff, sooner than the next poll, until it works. Logged once per outage.
   */
  function claimFailed(error: unknown): void {
    if (failingSince === null) {
      failingSince = Date.now();
      retryDelay = RETRY_MIN_MS;
      logger.warn({ err: error }, 'claiming jobs failed; trying again until the database answers');
    } else {
      logger.debug({ err: error }, 'claiming jobs failed again');
    }
    if (retryTimer || state !== 'running') return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void tick();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, pollMs);
  }

  /** Runs claim rounds until nothing asked for another; overlapping wake-ups fold into one more round. */
  function tick(): Promise<void> {
    if (state !== 'running') return Promise.resolve();
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        again = false;
        try {
          await claimRound();
          if (failingSince !== null) {
            logger.info({ downMs: Date.now() - failingSince }, 'claiming jobs again');
            failingSince = null;
          }
        } catch (error) {
          claimFailed(error);
          break;
        }
      } while (again && state === 'running');
    })().finally(() => {
      ticking = null;
    });
    return ticking;
  }

  async function subscribe(): Promise<void> {
    if (unlisten) return;
    try {
      unlisten = await store.db.listen(JOBS_CHANNEL, () => void tick());
      // Stopped while subscribing.
      if (state !== 'running') await unsubscribe();
    } catch (error) {
      logger.warn({ err: error }, 'cannot listen for new jobs; polling every %d ms', pollMs);
    }
  }

  async function unsubscribe(): Promise<void> {
    const current = unlisten;
    unlisten = null;
    await current?.().catch(() => {});
  }

  function schedulePoll(): void {
    pollTimer = setTimeout(async () => {
      await subscribe();
      await tick();
      if (state === 'running') schedulePoll();
    }, pollMs);
  }

  return {
    id,
    get running() {
      return runs.size;
    },

    async start() {
      if (state !== 'new') throw new Error('A worker starts only once.');
      state = 'running';
      await subscribe();
      schedulePoll();
      scheduleBeat();
      if (concurrency < config.worker.concurrency)
        logger.warn(
          { configured: config.worker.concurrency, concurrency },
          "AGENTJOBS_WORKER_CONCURRENCY is more than this process's limits allow (open files, processes); holding fewer jobs at once",
        );
      logger.info({ concurrency, projectConcurrency }, 'worker started');
      await tick();
    },

    stop(stopOptions = {}) {
      stopping ??= (async () => {
        const graceMs = stopOptions.graceMs ?? config.worker.shutdownGraceMs;
        state = 'stopping';
        if (pollTimer) clearTimeout(pollTimer);
        if (retryTimer) clearTimeout(retryTimer);
        await unsubscribe();
        await ticking;
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
        state = 'stopped';
        if (heartbeatTimer) clearTimeout(heartbeatTimer);
        logger.info('worker stopped');
      })();
      return stopping;
    },
  };
}
