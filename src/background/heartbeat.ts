/**
 * The lease heartbeat of a worker (docs/restarts.md): on the background loop (`loop.ts`), every
 * `heartbeatMs` it renews the leases of all its runs in one statement (`store.queue.renewLeases`),
 * and stops a run whose lease no longer holds (lost to another worker, or its job archived). While
 * the database is away the loop retries with backoff; a lease outlives several beats, so one
 * failed beat loses nothing. When it last ran is the worker's liveness (`/healthz`).
 */
import type { Logger } from '../log.js';
import type { ActiveRun } from '../run/run.js';
import type { Store } from '../store/store.js';
import { backgroundLoop } from './loop.js';

/** Missed beats after which the worker is stuck: its `/healthz` answers 503. */
export const STALLED_AFTER_BEATS = 3;

/** What a heartbeat needs: the worker's runs (keyed `jobId:attempt`) and its lease settings. */
export interface HeartbeatOptions {
  store: Store;
  logger: Logger;
  workerId: string;
  runs: ReadonlyMap<string, ActiveRun>;
  leaseMs: number;
  heartbeatMs: number;
}

/** A worker's heartbeat. */
export interface Heartbeat {
  /** Beats once now, then every `heartbeatMs`. */
  start(): Promise<void>;
  /** No beat starts after this; resolves once a running one is over. */
  stop(): Promise<void>;
  /**
   * Whether the last beat ended more than `STALLED_AFTER_BEATS` beats ago (a beat stuck on a
   * database that never answers, an event loop held up): true only once started.
   */
  stalled(now?: number): boolean;
}

export function createHeartbeat(options: HeartbeatOptions): Heartbeat {
  const { store, logger, runs, heartbeatMs } = options;
  let lastBeatAt: number | null = null;

  async function beat(): Promise<void> {
    const held = [...runs.values()];
    if (held.length === 0) return;
    const lost = await store.queue.renewLeases(
      options.workerId,
      held.map((run) => run.lease),
      options.leaseMs,
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
  }

  const loop = backgroundLoop({
    name: 'renewing leases',
    logger,
    pollMs: heartbeatMs,
    pass: async () => {
      try {
        await beat();
      } finally {
        // A beat that failed ran too: a database that is away is no reason to restart the worker.
        lastBeatAt = Date.now();
      }
      return undefined;
    },
  });

  return {
    async start() {
      lastBeatAt = Date.now();
      await loop.start();
    },
    stop: () => loop.stop(),
    stalled(now = Date.now()) {
      return lastBeatAt !== null && now - lastBeatAt > STALLED_AFTER_BEATS * heartbeatMs;
    },
  };
}
