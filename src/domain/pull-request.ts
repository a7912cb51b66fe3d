/**
 * The local code host's pull requests (docs/code-hosts.md): numbered per project, one per head
 * branch, so a retried run or a follow-up updates the one its branch has.
 */

export const PULL_REQUEST_STATES = ['open', 'merged', 'closed'] as const;
export type PullRequestState = (typeof PULL_REQUEST_STATES)[number];

/** A local pull request. */
export interface PullRequest {
  id: string;
  projectId: string;
  number: number;
  jobId: string | null;
  headBranch: string;
  baseBranch: string;
  title: string;
  body: string;
  state: PullRequestState;
  draft: boolean;
  headSha: string | null;
  /**
   * The commit its changes start from (the merge base of head and base when last opened or
   * updated), so a merged or closed one still shows what it changed. Null when unknown.
   */
  baseSha: string | null;
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
}

/** What opening (or updating) the pull request of a head branch takes. */
export interface OpenPullRequest {
  projectId: string;
  jobId: string;
  headBranch: string;
  baseBranch: string;
  title: string;
  body: string;
  draft: boolean;
  headSha: string;
  /** Where its changes start; unknown (null) when not given. */
  baseSha?: string | null;
}

/** A pull request's number from its link: every host's link (and the local one) ends in it. */
export function pullRequestNumber(link: string): number | null {
  const match = /\/(\d{1,9})\/?(?:[?#].*)?$/.exec(link);
  return match ? Number(match[1]) : null;
}
