/**
 * How a run that did not complete ends: handed back to the queue (a shutdown, a database outage),
 * stopped without a word more (a lost lease, an archive), or failed with the job's error.
 */
import type { Redactor } from '../domain/redact.js';
import { isLeaseLost, type Lease } from '../store/queue/index.js';
import { retryTransient } from '../store/transient.js';
import { isAgentError } from './agent-port.js';
import { ChecksFailedError } from './checks.js';
import { jobErrorOf, RunStopped } from './errors.js';
import type { RunControl, RunDependencies } from './run-context.js';

/** Records why the run ended, unless the run may no longer write. */
export async function settle(
  deps: RunDependencies,
  lease: Lease,
  control: RunControl,
  error: unknown,
  deliveredThrough: string | null,
  redact: Redactor,
) {
  const { log } = control;
  const stopped =
    control.publishing.reason instanceof RunStopped
      ? control.publishing.reason
      : control.main.reason instanceof RunStopped
        ? control.main.reason
        : null;
  try {
    if (isLeaseLost(error)) {
      control.stop(error.reason);
      control.ended('stopped');
      log.warn({ reason: error.reason }, 'job run stopped: it no longer holds the job');
    } else if (stopped?.reason === 'shutdown') {
      await deps.store.queue.release(lease);
      control.ended('released');
      log.info('job handed back to the queue for another worker');
    } else if (stopped) {
      control.ended('stopped');
      log.warn({ reason: stopped.reason }, 'job run stopped');
    } else if (!jobErrorOf(error).expected && deps.store.isTransient(error)) {
      // The database went away under the run (a restart, a failover): no fault of the job. Hand it
      // back once the database answers again; if it stays away, the lease lapses and it is reclaimed.
      // Errors of the model, git and the code hosts are classified first, so none of theirs lands here.
      log.warn(
        { err: error },
        'job run stopped: the database was unavailable; the job goes back to the queue',
      );
      await retryTransient(
        () => deps.store.queue.release(lease),
        deps.config.worker.leaseMs,
        deps.store.isTransient,
      );
      control.ended('released');
    } else {
      const { expected, ...described } = jobErrorOf(error);
      const jobError = { ...described, message: redact(described.message) };
      if (expected) log.warn({ error: jobError }, 'job failed');
      else log.error({ err: error }, 'job failed on an unexpected error');
      const partial = isAgentError(error) || error instanceof ChecksFailedError ? error.partial : null;
      await deps.store.queue.fail(
        lease,
        jobError,
        partial ? { conversation: partial.messages, usage: partial.usage, deliveredThrough } : undefined,
      );
      control.ended('failed');
    }
  } catch (writeError) {
    if (isLeaseLost(writeError))
      log.warn({ reason: writeError.reason }, 'job run stopped: it no longer holds the job');
    else log.error({ err: writeError }, 'could not record the end of the job run');
  }
}
