/**
 * The label of a pull request whose checks failed (docs/checks.md, "Failed checks"): put on when a
 * run publishes with failing checks (a draft under `draft`, or an open one under `publish`), taken
 * off when a later run's checks pass. Only on hosts with labels (`CodeHost.labelPullRequest`). A
 * host that refuses (a token that may not label) does not fail the job: the refusal is a
 * `pull_request` event (`label_failed`) on the job.
 */
import type { CheckRun } from '../domain/checks.js';
import { ServiceError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { CodeHost, PullRequestLink } from '../hosts/types.js';
import type { Lease } from '../store/queue/index.js';
import type { Store } from '../store/store.js';

/** The label's name on every host. */
export const CHECKS_FAILED_LABEL = 'agentjobs: checks failed';

/** What labelling needs: the store (the job's events), the run's lease, its host and project. */
export interface ChecksLabelInput {
  store: Store;
  lease: Lease;
  host: CodeHost;
  project: Project;
  signal?: AbortSignal;
}

/**
 * Puts the label on `pull` when `run` failed; takes it off when it passed and this job put it on
 * (its events say so), so a pull request that never had it costs no request.
 */
export async function labelForChecks(input: ChecksLabelInput, pull: PullRequestLink, run: CheckRun) {
  const { store, lease, host } = input;
  // Checks that could not run (`error`) say nothing either way: the label stays as it is.
  if (!host.labelPullRequest || run.status === 'error') return;
  const present = run.status === 'failed';
  const events = await store.events.ofTypes(lease.jobId, ['pull_request']);
  const last = events.findLast(
    (event) => 'action' in event.data && ['labelled', 'unlabelled'].includes(event.data.action),
  );
  const labelled = last !== undefined && 'action' in last.data && last.data.action === 'labelled';
  if (!present && !labelled) return;
  const label = CHECKS_FAILED_LABEL;
  try {
    await host.labelPullRequest({
      project: input.project,
      number: pull.number,
      label,
      present,
      signal: input.signal,
    });
  } catch (error) {
    if (!(ServiceError.isInstance(error) && error.code === 'code_host_error')) throw error;
    const message = `The pull request could not be ${present ? 'labelled' : 'rid of its label'} “${label}”: ${error.message}`;
    await store.queue.appendEvent(lease, 'pull_request', {
      action: 'label_failed',
      url: pull.url,
      label,
      message,
    });
    return;
  }
  if (present === labelled) return;
  await store.queue.appendEvent(lease, 'pull_request', {
    action: present ? 'labelled' : 'unlabelled',
    url: pull.url,
    label,
    message: present
      ? `Labelled “${label}”: its checks failed.`
      : `Label “${label}” taken off: its checks passed.`,
  });
}
