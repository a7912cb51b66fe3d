/**
 * Whether the pull request of an automation's latest job is still open, which decides whether the
 * automation's next run groups into that job (docs/automations.md, "Grouping"). A pull request
 * closed without merge is never grouped into (nor reopened): the next run makes a new job, which
 * opens a new pull request. The local host's records say it at once; for GitHub, GitLab and Gitea a
 * state learned as final (merged, closed) says it, else the host is asked, and its answer recorded
 * (it is also what the automation's runs show).
 */

import type { Job } from '../domain/job.js';
import { type PullRequestState, pullRequestNumber } from '../domain/pull-request.js';
import type { CodeHosts } from '../hosts/types.js';
import type { Store } from '../store/store.js';

/** The state of `job`'s pull request as the store knows it; null when it has none or it is unknown. */
export async function knownPullRequestState(store: Store, job: Job): Promise<PullRequestState | null> {
  const number = job.prLink ? pullRequestNumber(job.prLink) : null;
  return number === null ? null : store.hostPullRequests.stateOf(job.projectId, number);
}

/** What `pullRequestOpenOnHost` needs. */
export interface PullRequestStateDeps {
  store: Store;
  hosts: CodeHosts;
  log?: { warn(details: object, message: string): void };
}

/**
 * `AutomationRunDeps['pullRequestOpen']` that asks the job's code host when the store cannot tell.
 * A host that cannot be asked (down, refusing) leaves the pull request taken as open: the run
 * groups, and its follow-up asks the host again before it works (a closed one moves it to a new
 * branch and a new pull request then; nothing is reopened).
 */
export function pullRequestOpenOnHost(deps: PullRequestStateDeps): (job: Job) => Promise<boolean> {
  const { store, hosts } = deps;
  return async (job) => {
    const known = await knownPullRequestState(store, job);
    if (known === 'merged' || known === 'closed') return false;
    const number = job.prLink ? pullRequestNumber(job.prLink) : null;
    const project = await store.projects.get(job.projectId);
    if (number === null || !project || project.host === 'local') return true;
    try {
      const pull = await hosts(project.host).pullRequestState({ project, number });
      if (!pull) return false;
      await store.hostPullRequests.recordHostState(project.id, number, pull.state);
      return pull.state === 'open';
    } catch (error) {
      deps.log?.warn(
        { err: error, jobId: job.id },
        'could not ask the code host whether the pull request is open',
      );
      return true;
    }
  };
}
