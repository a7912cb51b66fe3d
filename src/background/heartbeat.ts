/**
 * The lease heartbeat of a worker (DESIGN section 4): every `heartbeatMs` it renews the leases of
 * all its runs in one statement (`store.queue.renewLeases`), and stops a run whose lease no longer
 * holds (lost to another worker, or its job archived). While the database is away it warns and
 * tries again at the next beat; a lease outlives several beats, so one failed beat loses nothing.
 */
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { ActiveRun } from '../worker/run.js';

/** What a heartbeat needs: the worker's runs (keyed `jobId:attempt`) and its lease settings. */
export interface HeartbeatOptions {
  store: Store;
  logger: Logger;
  workerId: string;
  runs: ReadonlyMap<string, ActiveRun>;
  leaseMs: number;
  heartbeatMs: number;
}

/** A running heartbeat. */
export interface Heartbeat {
  /** No beat starts after this; resolves once a running one is over. */
  stop(): Promise<void>;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const { store, logger, runs } = options;
  let timer: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;
  let stopped = false;

  async function beat(): Promise<void> {
    const held = [...runs.values()];
    if (held.length === 0) return;
    try {
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
    } catch (error) {
      logger.warn({ err: error }, 'heartbeat failed; renewing the leases again at the next beat');
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      beating = beat().finally(() => {
        beating = null;
        if (!stopped) schedule();
      });
    }, options.heartbeatMs);
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await beating;
    },
  };
}
