/**
 * One run of a claimed job: preparing (mirror, workspace, the project's environment) → running (the agent) → publishing
 * (commit, push, pull request) → completed; or failed, or stopped. Every store write is fenced by
 * the lease (`store.queue`), and the worker's heartbeat renews it (worker.ts, one statement for all
 * its runs); when the lease is lost or the job archived,
 * the run's signal aborts and nothing more is written or published. The workspace is removed
 * before the outcome is written, so the job can be claimed again at once without finding it.
 * An attempt that finds its job already published by an earlier attempt (which died before
 * completing) finishes from that record and does not run the agent again (publish.ts).
 * Everything the run hands out (events, summary, title, commit message and PR text made from them,
 * the job's error) is redacted by one redactor that knows the server's own secrets.
 */
import type { RunOutcome } from '../metrics/index.js';
import type { ClaimedJob, Lease } from '../store/queue/index.js';
import { isAgentError } from './agent-port.js';
import { ChecksFailedError } from './checks.js';
import { RunStopped, type StopReason } from './errors.js';
import { answer } from './phases/agent.js';
import { checkAndRepairPhase } from './phases/checks.js';
import { locate, prepare } from './phases/prepare.js';
import { finishEarlierRun, publishPhase } from './phases/publish.js';
import { setupPhase } from './phases/setup.js';
import { closeWorkspace, type RunState, runState } from './phases/state.js';
import type { RunControl, RunDependencies } from './run-context.js';
import { settle } from './settle.js';

/** A run in progress, as the worker holds it. */
export interface ActiveRun {
  jobId: string;
  attempt: number;
  /** What the worker's heartbeat renews. */
  lease: Lease;
  /** Stops the run: `shutdown` hands the job back; `lost` and `archived` write nothing more. */
  stop(reason: StopReason): void;
  /** Settles when the run is over and its workspace removed; never rejects. */
  done: Promise<void>;
}

/** Starts the run of `claimed`, after `previous` (an earlier run of the same job still finishing). */
export function startRun(deps: RunDependencies, claimed: ClaimedJob, previous?: Promise<void>): ActiveRun {
  // `main` stops everything; `publishing` only what must not publish (a shutdown lets publishing finish).
  const main = new AbortController();
  const publishing = new AbortController();
  const stop = (reason: StopReason) => {
    if (!main.signal.aborted) main.abort(new RunStopped(reason));
    if (reason !== 'shutdown' && !publishing.signal.aborted) publishing.abort(new RunStopped(reason));
  };
  // Every line about the job names it and its project, so an operator can follow either.
  const log = deps.logger.child({
    jobId: claimed.job.id,
    projectId: claimed.job.projectId,
    attempt: claimed.attempt,
  });
  deps.metrics?.jobPickedUp((Date.now() - Date.parse(claimed.queuedAt)) / 1000);
  const done = (previous ?? Promise.resolve())
    .then(() => {
      const startedAt = performance.now();
      const ended = (outcome: RunOutcome) =>
        deps.metrics?.jobRunEnded(outcome, (performance.now() - startedAt) / 1000);
      return runJob(deps, claimed, { main: main.signal, publishing: publishing.signal, stop, log, ended });
    })
    .catch((error) => log.error({ err: error }, 'job run crashed'));
  const lease: Lease = { jobId: claimed.job.id, attempt: claimed.attempt, owner: deps.workerId };
  return { jobId: claimed.job.id, attempt: claimed.attempt, lease, stop, done };
}

/**
 * The run's phases in order, over one state: locate, (finish an earlier attempt's publish, or)
 * prepare, answer, check and repair, publish. A failure in any of them ends the run (`endFailed`).
 */
async function runJob(deps: RunDependencies, claimed: ClaimedJob, control: RunControl): Promise<void> {
  const run = runState(deps, claimed, control);
  try {
    control.log.info('job run started');
    const located = await locate(run);
    const published = await deps.store.queue.published(run.job.id);
    if (published) return await finishEarlierRun(located, published);
    const prepared = await setupPhase(await prepare(located));
    const answered = await answer(prepared);
    const checked = await checkAndRepairPhase(answered);
    await publishPhase(checked);
  } catch (error) {
    await endFailed(run, error);
  } finally {
    await closeWorkspace(run);
  }
}

/**
 * Ends a run that failed or was stopped: the usage its steps did not record yet, the work kept on
 * the branch when it hit its cost limit, the workspace removed, then the outcome (settle.ts).
 */
async function endFailed(run: RunState, error: unknown): Promise<void> {
  const { deps, control } = run;
  // What the run's steps recorded is on the job already; the failure adds only the rest.
  const spent = isAgentError(error) || error instanceof ChecksFailedError ? error.partial : null;
  if (spent) {
    deps.metrics?.modelUsage(spent.usage);
    spent.usage = run.usage.remainder(spent.usage) as typeof spent.usage;
  }
  if (run.keepWork && isAgentError(error) && error.code === 'budget_exceeded') {
    const kept = await run.keepWork().catch((keepError: unknown) => {
      control.log.warn({ err: keepError }, 'could not keep the work on the branch');
      return null;
    });
    if (kept) error.message = `${error.message} ${kept}`;
  }
  await closeWorkspace(run);
  await settle(deps, run.lease, control, error, run.deliveredThrough, run.redact);
}
