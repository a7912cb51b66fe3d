/**
 * The `local` code host (DESIGN section 6): the project's repository is a git repository on this
 * machine (bare or a working copy), the job branch is pushed into it like into any remote, and the
 * pull request is a record in the database that the dashboard shows at
 * `{publicUrl}/ui/projects/{projectId}/pulls/{number}`.
 *
 * Pushing a job branch into a working copy is safe: git refuses to update the branch checked out
 * there, and job branches are never that branch.
 */
import type { PullRequestQueries } from '../store/pull-requests.js';
import type { CodeHost, PullRequestInput, PullRequestLink } from './types.js';

export interface LocalHostOptions {
  pullRequests: PullRequestQueries;
  /** The server's public URL, without a trailing slash. */
  publicUrl: string;
}

/** The dashboard page of a local pull request. */
export function localPullRequestUrl(publicUrl: string, projectId: string, number: number): string {
  return `${publicUrl}/ui/projects/${encodeURIComponent(projectId)}/pulls/${number}`;
}

export function createLocalHost(options: LocalHostOptions): CodeHost {
  return {
    kind: 'local',
    // A local repository needs no credentials.
    gitEnv: async () => ({}),
    async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestLink> {
      const { pullRequest } = await options.pullRequests.openOrUpdate({
        projectId: input.project.id,
        jobId: input.job.id,
        headBranch: input.branch,
        baseBranch: input.base,
        title: input.title,
        body: input.body,
        draft: input.draft,
        headSha: input.headSha,
      });
      return {
        url: localPullRequestUrl(options.publicUrl, input.project.id, pullRequest.number),
        number: pullRequest.number,
      };
    },
  };
}
