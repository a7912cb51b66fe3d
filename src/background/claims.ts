/**
 * The job worker's pass on the background loop: returns expired leases to the queue (now and
 * then), claims jobs up to the worker's free slots, and starts their runs (`run/run.ts`). A run
 * that ends frees a slot and wakes the loop for another pass.
 */
import type { ActiveRun } from '../run/run.js';
import { startRun } from '../run/run.js';
import type { RunDependencies } from '../run/run-context.js';

/** What a claim pass needs besides the run's dependencies. */
export interface ClaimPassOptions {
  deps: RunDependencies;
  /** The worker's runs, keyed `jobId:attempt`; the pass adds to it, each run removes itself. */
  runs: Map<string, ActiveRun>;
  /** Runs held at once at most (`runCapacity`). */
  concurrency: number;
  /** How many more jobs the worker may claim in all (`--max-jobs`); infinite by default. */
  claimable?: () => number;
  /** Told how many jobs a pass claimed. */
  onClaimed?: (count: number) => void;
  /** A run ended: wake the loop, a slot is free. */
  onRunEnded: () => void;
}

/** A pass that claims and starts jobs; it throws when the store does. */
export function claimPass(options: ClaimPassOptions): () => Promise<undefined> {
  const { deps, runs, concurrency } = options;
  const { store, logger, workerId } = deps;
  const { projectConcurrency, leaseMs, pollMs } = deps.config.worker;
  const waitingMessage = `Waiting for a free worker slot: every slot is taken (${concurrency} jobs at once per worker).`;
  // Expired leases are rare; looking for them on every wake-up would cost a write transaction each.
  const reclaimEveryMs = Math.min(pollMs, 1000);
  let lastReclaim = 0;
  let lastWaitingNote = 0;

  return async () => {
    if (Date.now() - lastReclaim >= reclaimEveryMs) {
      lastReclaim = Date.now();
      const { requeued, failed } = await store.queue.reclaimExpired();
      if (requeued.length + failed.length > 0) logger.warn({ requeued, failed }, 'reclaimed expired leases');
    }
    const claimable = options.claimable?.() ?? Number.POSITIVE_INFINITY;
    const free = Math.min(concurrency - runs.size, claimable);
    const claimed =
      free <= 0
        ? []
        : await store.queue.claim({ owner: workerId, limit: free, perProject: projectConcurrency, leaseMs });
    options.onClaimed?.(claimed.length);
    // Full: jobs left in the queue are told why they wait (once each; at most once a second here);
    // not by a worker that has claimed all it may, since its slots are not what they wait for.
    const full = claimed.length === Math.max(free, 0) && claimable > claimed.length;
    if (full && Date.now() - lastWaitingNote >= reclaimEveryMs) {
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
        options.onRunEnded();
      });
    }
    return undefined;
  };
}
