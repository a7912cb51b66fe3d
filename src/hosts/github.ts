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
import { z } from 'zod';
import type { Project } from '../domain/project.js';
import { askpassEnv, type GitCredentials } from '../git/run.js';
import {
  createGithubClient,
  explainGithubError,
  type GithubRetryOptions,
  githubStatus,
} from './github-client.js';
import {
  closePull,
  openOrUpdatePull,
  type GithubSession as PullsSession,
  pullState,
} from './github-pulls.js';
import { labelGithubPull } from './labels.js';
import {
  contextAccess,
  gitReadCheck,
  repositorySegments,
  repositoryUrl,
  requireSecret,
  settingsError,
} from './shared.js';
import {
  type CodeHost,
  CodeHostError,
  type ContextSecret,
  type HostCheck,
  type ProjectSecret,
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

/** A client of one GitHub repository, with the project's settings. */
interface GithubSession extends PullsSession {
  target: GithubTarget;
}

export function createGithubHost(options: GithubHostOptions): CodeHost {
  const tokenOf = installationTokens(options);
  // GitHub takes any user name with a token as the password; `x-access-token` is what it documents
  // for installation tokens, and works for personal tokens too.
  const credentialsOf = async (project: Project): Promise<GitCredentials> => ({
    username: 'x-access-token',
    token: await tokenOf(project, githubTarget(project)),
  });
  const session = (target: GithubTarget, token: string): GithubSession => ({
    octokit: createGithubClient(target.apiUrl, token, options.retry),
    target,
    name: `${target.owner}/${target.repo}`,
  });
  const client = async (project: Project) => {
    const target = githubTarget(project);
    return session(target, await tokenOf(project, target));
  };
  /** The client for a thread's repository: the project's own, or a context repository's with its token. */
  const threadClient = async (project: Project, repository: ThreadRepository) => {
    if (repository.kind === 'content') return client(project);
    const { target, token } = await contextAccess(
      'github',
      project,
      repository,
      options.contextSecret,
      githubTarget,
    );
    return session(target, token);
  };

  return {
    kind: 'github',
    async gitEnv(project) {
      return askpassEnv(options.askpassDir, await credentialsOf(project));
    },
    async openOrUpdatePullRequest(input) {
      return openOrUpdatePull(await client(input.project), input);
    },
    async closePullRequest(input) {
      return closePull(await client(input.project), input.branch, input.signal);
    },
    async pullRequestState(input) {
      return pullState(await client(input.project), input.number, input.signal);
    },
    async labelPullRequest(input) {
      return labelGithubPull(await client(input.project), input);
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
      return collaboratorPermission(await threadClient(project, repository), author.username);
    },
    async check(project): Promise<HostCheck[]> {
      const checks = await repositoryChecks(await client(project));
      checks.splice(1, 0, await gitReadCheck(project, options.askpassDir, () => credentialsOf(project)));
      return checks;
    },
  };
}

/**
 * The token for the API and for git: the project's own, or an installation token of its App,
 * minted from the App's private key. One auth per installation caches the installation token and
 * mints a new one before it expires (they last an hour).
 */
function installationTokens(options: GithubHostOptions) {
  const appAuths = new Map<string, ReturnType<typeof createAppAuth>>();
  return async (project: Project, target: GithubTarget): Promise<string> => {
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
}

/** Whether `username` may write to the repository, from their permission on it. */
async function collaboratorPermission({ octokit, target, name }: GithubSession, username: string) {
  try {
    // "Get repository permissions for a user": `permission` is the base role (maintain reads
    // as write, triage as read), `role_name` the highest role the user has.
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: target.owner,
      repo: target.repo,
      username,
    });
    const canWrite = data.permission === 'admin' || data.permission === 'write';
    return { canWrite, role: data.role_name || data.permission };
  } catch (error) {
    // No such user: nobody with access.
    if (githubStatus(error) === 404) return { canWrite: false, role: 'none' };
    throw explainGithubError(error, `reading ${username}'s permission`, name);
  }
}

/** The API's checks of `agentjobs project check`: reading the repository, then pushing and pull requests. */
async function repositoryChecks({ octokit, target, name }: GithubSession): Promise<HostCheck[]> {
  let repository: { archived: boolean; permissions?: { push?: boolean; pull?: boolean } };
  try {
    repository = (await octokit.rest.repos.get({ owner: target.owner, repo: target.repo })).data;
  } catch (error) {
    const explained = explainGithubError(error, 'reading the repository', name);
    return [{ name: 'read', ok: false, detail: (explained as Error).message }];
  }
  const push = repository.permissions?.push === true && !repository.archived;
  return [
    { name: 'read', ok: true, detail: `The token can read ${name} through ${target.apiUrl}.` },
    {
      name: 'push',
      ok: push,
      detail: repository.archived
        ? `${name} is archived, so nothing can be pushed to it.`
        : push
          ? `The token may push branches to ${name}.`
          : `The token may not push to ${name}: give it Contents: read and write (fine-grained), the repo scope (classic), or write access for the App.`,
    },
    {
      name: 'pull_request',
      ok: push,
      detail: push
        ? `The token may open pull requests on ${name} (a fine-grained token also needs Pull requests: read and write).`
        : `Without write access the token cannot open pull requests on ${name}.`,
    },
  ];
}
