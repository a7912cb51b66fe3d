/**
 * The `github` code host (docs/code-hosts.md): github.com and GitHub Enterprise Server, through a
 * personal or fine-grained token, or a GitHub App installation. git pushes over HTTPS with the
 * token in its environment (`askpassEnv`); pull requests go through the REST API with Octokit.
 *
 * Project settings (`hostSettings`, none of them secret):
 * - `apiUrl`: the REST API base; default `https://api.github.com` for github.com and
 *   `https://HOST/api/v3` (GitHub Enterprise Server) for any other host of the repository URL;
 * - `owner`, `repo`: default from the repository URL `https://HOST/OWNER/REPO(.git)`;
 * - `appId`, `installationId`: authenticate as that GitHub App installation; the project's secret
 *   is then the App's private key (PEM) and installation tokens are minted from it.
 */
import { createAppAuth } from '@octokit/auth-app';
import type { Octokit } from '@octokit/rest';
import { z } from 'zod';
import type { Project } from '../domain/project.js';
import { askpassEnv, type GitCredentials } from '../git/run.js';
import {
  createGithubClient,
  explainGithubError,
  type GithubRetryOptions,
  githubMessage,
  githubStatus,
} from './github-client.js';
import {
  gitReadCheck,
  repositorySegments,
  repositoryUrl,
  requireContextSecret,
  requireSecret,
  settingsError,
  threadLocation,
} from './shared.js';
import {
  type CodeHost,
  CodeHostError,
  type ContextSecret,
  type HostCheck,
  type ProjectSecret,
  type PullRequestInput,
  type PullRequestLink,
  type ThreadRepository,
} from './types.js';

export interface GithubHostOptions {
  /** The project's secret in plain text (token or App private key), or null when it has none. */
  secret: ProjectSecret;
  /** A context repository's token, for its threads (replies, authors' permissions). */
  contextSecret?: ContextSecret;
  /** Where git's askpass script is written (see `askpassEnv`). */
  askpassDir: string;
  retry?: GithubRetryOptions;
}

const settingsSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }).optional(),
  owner: z
    .string()
    .regex(/^[\w.-]+$/)
    .optional(),
  repo: z
    .string()
    .regex(/^[\w.-]+$/)
    .optional(),
  appId: z.union([z.string(), z.number()]).transform(String).optional(),
  installationId: z.union([z.string(), z.number()]).transform(String).optional(),
});

/** Where a GitHub project lives: its API and `owner/repo`. */
export interface GithubTarget {
  apiUrl: string;
  owner: string;
  repo: string;
  appId: string | null;
  installationId: string | null;
}

/** Reads a project's GitHub settings, filling what the repository URL implies; throws `CodeHostError`. */
export function githubTarget(project: Pick<Project, 'repository' | 'hostSettings'>): GithubTarget {
  const parsed = settingsSchema.safeParse(project.hostSettings);
  if (!parsed.success) throw settingsError('GitHub', parsed.error.issues[0]);
  const settings = parsed.data;
  // Not a URL (a local path): owner and repo must come from the settings.
  const url = repositoryUrl(project.repository);
  const [owner, repo] = repositorySegments(url).slice(-2);
  const target = {
    apiUrl: (settings.apiUrl ?? defaultApiUrl(url)).replace(/\/+$/, ''),
    owner: settings.owner ?? owner ?? '',
    repo: settings.repo ?? repo ?? '',
    appId: settings.appId ?? null,
    installationId: settings.installationId ?? null,
  };
  if (!target.owner || !target.repo)
    throw new CodeHostError('The GitHub repository must be a URL like https://github.com/OWNER/REPO.');
  if ((target.appId === null) !== (target.installationId === null))
    throw new CodeHostError('A GitHub App project needs both appId and installationId.');
  return target;
}

function defaultApiUrl(url: URL | null): string {
  if (!url || url.hostname === 'github.com' || url.hostname === 'www.github.com')
    return 'https://api.github.com';
  return `${url.origin}/api/v3`;
}

export function createGithubHost(options: GithubHostOptions): CodeHost {
  const appAuths = new Map<string, ReturnType<typeof createAppAuth>>();

  /**
   * The token for the API and for git: the project's own, or an installation token of its App,
   * minted from the App's private key. One auth per installation caches the installation token and
   * mints a new one before it expires (they last an hour).
   */
  const tokenOf = async (project: Project, target: GithubTarget): Promise<string> => {
    const secret = await requireSecret(
      options.secret,
      project,
      'GitHub',
      target.appId ? 'App private key' : 'token',
    );
    if (!target.appId || !target.installationId) return secret;
    const key = `${project.id} ${target.apiUrl} ${target.appId} ${target.installationId}`;
    let appAuth = appAuths.get(key);
    if (!appAuth) {
      appAuth = createAppAuth({
        appId: target.appId,
        privateKey: secret,
        installationId: target.installationId,
        request: createGithubClient(target.apiUrl, null, options.retry).request,
      });
      appAuths.set(key, appAuth);
    }
    try {
      return (await appAuth({ type: 'installation' })).token;
    } catch (error) {
      throw explainGithubError(
        error,
        'minting a GitHub App installation token',
        `${target.owner}/${target.repo}`,
      );
    }
  };

  // GitHub takes any user name with a token as the password; `x-access-token` is what it documents
  // for installation tokens, and works for personal tokens too.
  const credentialsOf = async (project: Project): Promise<GitCredentials> => ({
    username: 'x-access-token',
    token: await tokenOf(project, githubTarget(project)),
  });

  const client = async (
    project: Project,
  ): Promise<{ octokit: Octokit; target: GithubTarget; name: string }> => {
    const target = githubTarget(project);
    const octokit = createGithubClient(target.apiUrl, await tokenOf(project, target), options.retry);
    return { octokit, target, name: `${target.owner}/${target.repo}` };
  };

  /** The client for a thread's repository: the project's own, or a context repository's with its token. */
  const threadClient = async (project: Project, repository: ThreadRepository) => {
    if (repository.kind === 'content') return client(project);
    const target = githubTarget(threadLocation('github', project, repository));
    const token = await requireContextSecret(options.contextSecret, project, repository.name, 'GitHub');
    const octokit = createGithubClient(target.apiUrl, token, options.retry);
    return { octokit, target, name: `${target.owner}/${target.repo}` };
  };

  return {
    kind: 'github',

    async gitEnv(project) {
      return askpassEnv(options.askpassDir, await credentialsOf(project));
    },

    async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestLink> {
      const { octokit, target, name } = await client(input.project);
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
        const { data: open } = await octokit.rest.pulls.list({
          ...repository,
          head: `${target.owner}:${input.branch}`,
          state: 'open',
          request,
        });
        const existing = open[0];
        if (!existing) {
          throw new CodeHostError(
            `GitHub says ${input.branch} has a pull request on ${name}, but none is open; try again.`,
            {
              isRetryable: true,
            },
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
    },

    async closePullRequest(input) {
      const { octokit, target, name } = await client(input.project);
      const request = input.signal ? { signal: input.signal } : {};
      const repository = { owner: target.owner, repo: target.repo };
      try {
        const { data: open } = await octokit.rest.pulls.list({
          ...repository,
          head: `${target.owner}:${input.branch}`,
          state: 'open',
          request,
        });
        const existing = open[0];
        if (!existing) return null;
        const { data } = await octokit.rest.pulls.update({
          ...repository,
          pull_number: existing.number,
          state: 'closed',
          request,
        });
        return { url: data.html_url, number: data.number };
      } catch (error) {
        throw explainGithubError(error, 'closing the pull request', name);
      }
    },

    async pullRequestState(input) {
      const { octokit, target, name } = await client(input.project);
      try {
        const { data } = await octokit.rest.pulls.get({
          owner: target.owner,
          repo: target.repo,
          pull_number: input.number,
          request: input.signal ? { signal: input.signal } : {},
        });
        const state = data.merged_at ? 'merged' : data.state === 'open' ? 'open' : 'closed';
        return { number: data.number, state, branch: data.head.ref };
      } catch (error) {
        if (githubStatus(error) === 404) return null;
        throw explainGithubError(error, 'reading the pull request', name);
      }
    },

    async commentOnThread(project, target, body) {
      const { octokit, target: repository, name } = await threadClient(project, target.repository);
      try {
        // A pull request's conversation is its issue's: GitHub comments on both through the issues API.
        await octokit.rest.issues.createComment({
          owner: repository.owner,
          repo: repository.repo,
          issue_number: target.number,
          body,
        });
      } catch (error) {
        throw explainGithubError(error, 'commenting on the thread', name);
      }
    },

    async authorPermission(project, repository, author) {
      const { octokit, target, name } = await threadClient(project, repository);
      try {
        // "Get repository permissions for a user": `permission` is the base role (maintain reads
        // as write, triage as read), `role_name` the highest role the user has.
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
          owner: target.owner,
          repo: target.repo,
          username: author.username,
        });
        const canWrite = data.permission === 'admin' || data.permission === 'write';
        return { canWrite, role: data.role_name || data.permission };
      } catch (error) {
        // No such user: nobody with access.
        if (githubStatus(error) === 404) return { canWrite: false, role: 'none' };
        throw explainGithubError(error, `reading ${author.username}'s permission`, name);
      }
    },

    async check(project): Promise<HostCheck[]> {
      const { octokit, target, name } = await client(project);
      const checks: HostCheck[] = [];
      let repository: { archived: boolean; permissions?: { push?: boolean; pull?: boolean } } | null = null;
      try {
        repository = (await octokit.rest.repos.get({ owner: target.owner, repo: target.repo })).data;
        checks.push({
          name: 'read',
          ok: true,
          detail: `The token can read ${name} through ${target.apiUrl}.`,
        });
      } catch (error) {
        const explained = explainGithubError(error, 'reading the repository', name);
        checks.push({ name: 'read', ok: false, detail: (explained as Error).message });
      }
      const git = await gitReadCheck(project, options.askpassDir, () => credentialsOf(project));
      checks.push(git);
      if (repository) {
        const push = repository.permissions?.push === true && !repository.archived;
        checks.push({
          name: 'push',
          ok: push,
          detail: repository.archived
            ? `${name} is archived, so nothing can be pushed to it.`
            : push
              ? `The token may push branches to ${name}.`
              : `The token may not push to ${name}: give it Contents: read and write (fine-grained), the repo scope (classic), or write access for the App.`,
        });
        checks.push({
          name: 'pull_request',
          ok: push,
          detail: push
            ? `The token may open pull requests on ${name} (a fine-grained token also needs Pull requests: read and write).`
            : `Without write access the token cannot open pull requests on ${name}.`,
        });
      }
      return checks;
    },
  };
}
