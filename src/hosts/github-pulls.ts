/** The pull-request calls of the GitHub host (github.ts): open or update, close, read the state. */
import type { Octokit } from '@octokit/rest';
import { explainGithubError, githubMessage, githubStatus } from './github-client.js';
import { CodeHostError, type PullRequestInput, type PullRequestLink } from './types.js';

/** A client of one GitHub repository: its Octokit, where it is, and its name (`owner/repo`). */
export interface GithubSession {
  octokit: Octokit;
  target: { owner: string; repo: string };
  name: string;
}

/** Opens the branch's pull request, or updates the one it has (a retried run, a follow-up). */
export async function openOrUpdatePull(
  { octokit, target, name }: GithubSession,
  input: PullRequestInput,
): Promise<PullRequestLink> {
  const request = input.signal ? { signal: input.signal } : {};
  const repository = { owner: target.owner, repo: target.repo };
  try {
    const { data } = await octokit.rest.pulls.create({
      ...repository,
      title: input.title,
      body: input.body,
      head: input.branch,
      base: input.base,
      draft: input.draft,
      request,
    });
    return { url: data.html_url, number: data.number };
  } catch (error) {
    // A retried run or a follow-up: the branch has its pull request already (GitHub answers
    // 422 "A pull request already exists for OWNER:BRANCH."); update and reuse it.
    if (!(githubStatus(error) === 422 && /already exists/i.test(githubMessage(error))))
      throw explainGithubError(error, 'opening the pull request', name);
  }
  try {
    const existing = await openPull({ octokit, target, name }, input.branch, request);
    if (!existing) {
      throw new CodeHostError(
        `GitHub says ${input.branch} has a pull request on ${name}, but none is open; try again.`,
        { isRetryable: true },
      );
    }
    const { data } = await octokit.rest.pulls.update({
      ...repository,
      pull_number: existing.number,
      title: input.title,
      body: input.body,
      request,
    });
    return { url: data.html_url, number: data.number };
  } catch (error) {
    throw explainGithubError(error, 'updating the pull request', name);
  }
}

/** Closes the branch's open pull request; null when it has none. */
export async function closePull(
  session: GithubSession,
  branch: string,
  signal?: AbortSignal,
): Promise<PullRequestLink | null> {
  const { octokit, target, name } = session;
  const request = signal ? { signal } : {};
  try {
    const existing = await openPull(session, branch, request);
    if (!existing) return null;
    const { data } = await octokit.rest.pulls.update({
      owner: target.owner,
      repo: target.repo,
      pull_number: existing.number,
      state: 'closed',
      request,
    });
    return { url: data.html_url, number: data.number };
  } catch (error) {
    throw explainGithubError(error, 'closing the pull request', name);
  }
}

/** Pull request `number`'s state and branch; null when there is none. */
export async function pullState(
  { octokit, target, name }: GithubSession,
  number: number,
  signal?: AbortSignal,
) {
  try {
    const { data } = await octokit.rest.pulls.get({
      owner: target.owner,
      repo: target.repo,
      pull_number: number,
      request: signal ? { signal } : {},
    });
    const state = data.merged_at ? 'merged' : data.state === 'open' ? 'open' : ('closed' as const);
    return { number: data.number, state, branch: data.head.ref } as const;
  } catch (error) {
    if (githubStatus(error) === 404) return null;
    throw explainGithubError(error, 'reading the pull request', name);
  }
}

/** The branch's open pull request (its first), or undefined. */
async function openPull(
  { octokit, target }: GithubSession,
  branch: string,
  request: { signal?: AbortSignal },
) {
  const { data: open } = await octokit.rest.pulls.list({
    owner: target.owner,
    repo: target.repo,
    head: `${target.owner}:${branch}`,
    state: 'open',
    request,
  });
  return open[0];
}
