/**
 * Labels on pull requests, for the hosts that have them (docs/code-hosts.md, "Labels"): GitHub and
 * Gitea label a pull request through its issue, GitLab a merge request itself. Putting a label on
 * twice, or taking off one that is not there, is no error on any of them.
 */
import { explainGiteaError, type GiteaRequest, giteaStatus } from './gitea-client.js';
import { explainGithubError, githubStatus } from './github-client.js';
import type { GithubSession } from './github-pulls.js';
import { explainGitlabError, type GitlabClient } from './gitlab-client.js';
import { CodeHostError, type PullRequestLabelInput } from './types.js';

const what = (input: PullRequestLabelInput) =>
  `${input.present ? 'putting' : 'taking'} the label “${input.label}” ${input.present ? 'on' : 'off'} pull request ${input.number}`;

/**
 * GitHub's issue labels API (a pull request is an issue there): adding a name the repository has
 * no label of makes the label; removing one the issue lacks answers 404.
 */
export async function labelGithubPull(
  { octokit, target, name }: GithubSession,
  input: PullRequestLabelInput,
): Promise<void> {
  const issue = { owner: target.owner, repo: target.repo, issue_number: input.number };
  const request = input.signal ? { signal: input.signal } : {};
  try {
    if (input.present) await octokit.rest.issues.addLabels({ ...issue, labels: [input.label], request });
    else await octokit.rest.issues.removeLabel({ ...issue, name: input.label, request });
  } catch (error) {
    if (!input.present && githubStatus(error) === 404) return;
    throw explainGithubError(error, what(input), name);
  }
}

/**
 * GitLab's `add_labels` and `remove_labels` of a merge request: GitLab makes a label it lacks. A
 * user who may not label gets 200 with the change dropped, so the answer's labels are read.
 */
export async function labelGitlabMergeRequest(
  api: GitlabClient,
  path: string,
  name: string,
  input: PullRequestLabelInput,
): Promise<void> {
  let labels: string[];
  try {
    const updated = await api<{ labels?: string[] }>('PUT', `${path}/merge_requests/${input.number}`, {
      body: input.present ? { add_labels: input.label } : { remove_labels: input.label },
    });
    labels = updated.labels ?? [];
  } catch (error) {
    throw explainGitlabError(error, what(input), name);
  }
  if (labels.includes(input.label) !== input.present)
    throw new CodeHostError(
      `GitLab left ${what(input)} on ${name} undone: the token's user may not label merge requests there (it needs the Reporter role or above).`,
    );
}

interface GiteaLabel {
  id: number;
  name: string;
}

/** Gitea labels by id: the repository's label of that name is found, or made to put it on. */
export async function labelGiteaPull(
  request: GiteaRequest,
  path: string,
  name: string,
  input: PullRequestLabelInput,
): Promise<void> {
  try {
    let label = await findGiteaLabel(request, path, input.label);
    if (!label && !input.present) return;
    // A red like GitHub's for failures; Gitea requires a colour.
    label ??= await request<GiteaLabel>('POST', `${path}/labels`, {
      body: { name: input.label, color: '#d73a4a' },
    });
    if (input.present)
      await request('POST', `${path}/issues/${input.number}/labels`, { body: { labels: [label.id] } });
    else await request('DELETE', `${path}/issues/${input.number}/labels/${label.id}`);
  } catch (error) {
    if (!input.present && giteaStatus(error) === 404) return;
    throw explainGiteaError(error, what(input), name);
  }
}

/** The repository's label named `label`, read 50 at a time (Gitea's usual page limit). */
async function findGiteaLabel(request: GiteaRequest, path: string, label: string) {
  for (let page = 1; page <= 20; page++) {
    const labels = await request<GiteaLabel[]>('GET', `${path}/labels`, { query: { page, limit: 50 } });
    const found = labels.find((each) => each.name === label);
    if (found || labels.length < 50) return found;
  }
  return undefined;
}
