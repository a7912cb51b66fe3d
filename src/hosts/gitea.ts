/**
 * The `gitea` code host (docs/code-hosts.md): Gitea and Forgejo (which keeps Gitea's API), through an
 * access token. git pushes over HTTPS with the token as the password in its environment
 * (`askpassEnv`); pull requests go through the REST API (`/api/v1/repos/{owner}/{repo}/pulls`).
 *
 * Project settings (`hostSettings`, none of them secret):
 * - `apiUrl`: the instance's base URL (with the sub-path it is served under, if any); a trailing
 *   `/api/v1` is dropped. Default: the repository URL up to its `OWNER/REPO`.
 * - `owner`, `repo`: default from the repository URL `https://HOST[/PATH]/OWNER/REPO(.git)`.
 *
 * A draft is written as Gitea writes it: the title starts with `WIP: ` (its default
 * `WORK_IN_PROGRESS_PREFIXES`). Updating a pull request keeps the draft state it has on Gitea.
 */
import { z } from 'zod';
import type { Project } from '../domain/project.js';
import { askpassEnv, type GitCredentials } from '../git/run.js';
import {
  createGiteaClient,
  explainGiteaError,
  type GiteaRequest,
  giteaMessage,
  giteaStatus,
} from './gitea-client.js';
import type { HostRetryOptions } from './http.js';
import { labelGiteaPull } from './labels.js';
import {
  contextAccess,
  gitReadCheck,
  instanceBase,
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
  type PullRequestInput,
  type PullRequestLink,
  type ThreadRepository,
} from './types.js';

export interface GiteaHostOptions {
  /** The project's token in plain text, or null when it has none. */
  secret: ProjectSecret;
  /** A context repository's token, for its threads (replies, authors' permissions). */
  contextSecret?: ContextSecret;
  /** Where git's askpass script is written (see `askpassEnv`). */
  askpassDir: string;
  retry?: HostRetryOptions;
}

const name = z
  .string()
  .regex(/^[\w.-]+$/)
  .optional();
const settingsSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }).optional(),
  owner: name,
  repo: name,
});

/** Where a Gitea repository lives: the instance's base URL and `owner/repo`. */
export interface GiteaTarget {
  baseUrl: string;
  owner: string;
  repo: string;
}

/** Reads a project's Gitea settings, filling what the repository URL implies; throws `CodeHostError`. */
export function giteaTarget(project: Pick<Project, 'repository' | 'hostSettings'>): GiteaTarget {
  const parsed = settingsSchema.safeParse(project.hostSettings);
  if (!parsed.success) throw settingsError('Gitea', parsed.error.issues[0]);
  const settings = parsed.data;
  const url = repositoryUrl(project.repository);
  const segments = repositorySegments(url);
  const prefix = segments.slice(0, -2).map(encodeURIComponent).join('/');
  const derivedBase = url && segments.length >= 2 ? `${url.origin}${prefix ? `/${prefix}` : ''}` : '';
  const target = {
    baseUrl: instanceBase(settings.apiUrl ?? derivedBase, /\/api\/v1$/),
    owner: settings.owner ?? segments.at(-2) ?? '',
    repo: settings.repo ?? segments.at(-1) ?? '',
  };
  if (!target.owner || !target.repo || !target.baseUrl)
    throw new CodeHostError('The Gitea repository must be a URL like https://gitea.example.com/OWNER/REPO.');
  return target;
}

const WIP = /^\s*(wip:|\[wip\])/i;

/** A title as Gitea marks a draft (work in progress); one that already says so is left alone. */
export function giteaDraftTitle(title: string, draft: boolean): string {
  return draft && !WIP.test(title) ? `WIP: ${title}` : title;
}

interface GiteaPull {
  number: number;
  html_url: string;
  title: string;
  state?: string;
  merged?: boolean;
  draft?: boolean;
  head?: { ref?: string; repo?: { full_name?: string } | null };
}

interface GiteaRepository {
  archived?: boolean;
  has_pull_requests?: boolean;
  permissions?: { admin?: boolean; push?: boolean; pull?: boolean };
}

/** Open pull requests are listed this many at a time (Gitea's default `MAX_RESPONSE_ITEMS`)… */
const PAGE = 50;
/** …for at most this many pages: a repository with over 1,000 open pull requests is not expected. */
const PAGES = 20;

/** A client of one Gitea repository: its API, where it is, and its path under `/api/v1`. */
interface GiteaSession {
  request: GiteaRequest;
  target: GiteaTarget;
  path: string;
  name: string;
}

const session = (target: GiteaTarget, request: GiteaRequest): GiteaSession => ({
  request,
  target,
  path: `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}`,
  name: `${target.owner}/${target.repo}`,
});

export function createGiteaHost(options: GiteaHostOptions): CodeHost {
  // Gitea reads a token from the password of HTTP basic authentication whatever the user name
  // (services/auth/basic.go; the token as the user name works too, but user names end up in access
  // logs, passwords do not).
  const credentialsOf = async (project: Project): Promise<GitCredentials> => ({
    username: 'agentjobs',
    token: await requireSecret(options.secret, project, 'Gitea'),
  });
  const client = async (project: Project, signal?: AbortSignal) => {
    const target = giteaTarget(project);
    const { token } = await credentialsOf(project);
    return session(target, createGiteaClient(target.baseUrl, token, options.retry, signal));
  };
  /** The client for a thread's repository: the project's own, or a context repository's with its token. */
  const threadClient = async (project: Project, repository: ThreadRepository) => {
    if (repository.kind === 'content') return client(project);
    const { target, token } = await contextAccess(
      'gitea',
      project,
      repository,
      options.contextSecret,
      giteaTarget,
    );
    return session(target, createGiteaClient(target.baseUrl, token, options.retry));
  };

  return {
    kind: 'gitea',

    async gitEnv(project) {
      return askpassEnv(options.askpassDir, await credentialsOf(project));
    },

    async openOrUpdatePullRequest(input) {
      return openOrUpdatePull(await client(input.project, input.signal), input);
    },

    async closePullRequest(input) {
      const { request, path, name } = await client(input.project, input.signal);
      try {
        const existing = await findOpenPull(request, path, name, input.branch);
        if (!existing) return null;
        const closed = await request<GiteaPull>('PATCH', `${path}/pulls/${existing.number}`, {
          body: { state: 'closed' },
        });
        return { url: closed.html_url, number: closed.number };
      } catch (error) {
        throw explainGiteaError(error, 'closing the pull request', name);
      }
    },

    async pullRequestState(input) {
      return pullState(await client(input.project, input.signal), input.number);
    },

    async labelPullRequest(input) {
      const { request, path, name } = await client(input.project, input.signal);
      return labelGiteaPull(request, path, name, input);
    },

    async commentOnThread(project, thread, body) {
      const { request, path, name } = await threadClient(project, thread.repository);
      try {
        // A pull request is an issue to Gitea: both take comments at the issue's index.
        await request('POST', `${path}/issues/${thread.number}/comments`, { body: { body } });
      } catch (error) {
        throw explainGiteaError(error, 'commenting on the thread', name);
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

/** Opens the branch's pull request, or updates the one it has (a retried run, a follow-up). */
async function openOrUpdatePull(
  { request, path, name }: GiteaSession,
  input: PullRequestInput,
): Promise<PullRequestLink> {
  try {
    const created = await request<GiteaPull>('POST', `${path}/pulls`, {
      body: {
        title: giteaDraftTitle(input.title, input.draft),
        body: input.body,
        head: input.branch,
        base: input.base,
      },
    });
    return { url: created.html_url, number: created.number };
  } catch (error) {
    // A retried run or a follow-up: the branch has its pull request already (Gitea answers 409
    // "pull request already exists for these targets [...]"; some versions 422); update and
    // reuse it.
    const status = giteaStatus(error);
    if (!((status === 409 || status === 422) && /already exists/i.test(giteaMessage(error))))
      throw explainGiteaError(error, 'opening the pull request', name);
  }
  try {
    const existing = await findOpenPull(request, path, name, input.branch);
    if (!existing) {
      throw new CodeHostError(
        `Gitea says ${input.branch} has a pull request on ${name}, but none is open; try again.`,
        { isRetryable: true },
      );
    }
    const draft = existing.draft === true || WIP.test(existing.title);
    const updated = await request<GiteaPull>('PATCH', `${path}/pulls/${existing.number}`, {
      body: { title: giteaDraftTitle(input.title, draft), body: input.body },
    });
    return { url: updated.html_url, number: updated.number };
  } catch (error) {
    throw explainGiteaError(error, 'updating the pull request', name);
  }
}

/** Pull request `number`'s state and branch; null when there is none. */
async function pullState({ request, path, name }: GiteaSession, number: number) {
  try {
    const pull = await request<GiteaPull>('GET', `${path}/pulls/${number}`);
    const state = pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed';
    return { number: pull.number, state, branch: pull.head?.ref ?? '' } as const;
  } catch (error) {
    if (giteaStatus(error) === 404) return null;
    throw explainGiteaError(error, 'reading the pull request', name);
  }
}

/** Whether `username` may write to the repository, from their access mode on it. */
async function collaboratorPermission({ request, path, name }: GiteaSession, username: string) {
  try {
    // `repoGetRepoPermissions`: the user's access mode on the repository (`none`, `read`,
    // `write`, `admin`, `owner`). Gitea answers it only to a site admin or a repository admin
    // (403 to anyone else), so the project's token must belong to one.
    const found = await request<{ permission?: string; role_name?: string }>(
      'GET',
      `${path}/collaborators/${encodeURIComponent(username)}/permission`,
    );
    const permission = found.permission ?? 'none';
    return { canWrite: ['write', 'admin', 'owner'].includes(permission), role: permission };
  } catch (error) {
    // No such user.
    if (giteaStatus(error) === 404) return { canWrite: false, role: 'none' };
    throw explainGiteaError(error, `reading ${username}'s permission`, name);
  }
}

/** The API's checks of `agentjobs project check`: reading the repository, then pushing and pull requests. */
async function repositoryChecks({ request, target, path, name }: GiteaSession): Promise<HostCheck[]> {
  let repository: GiteaRepository;
  try {
    repository = await request<GiteaRepository>('GET', path);
  } catch (error) {
    const explained = explainGiteaError(error, 'reading the repository', name);
    return [{ name: 'read', ok: false, detail: (explained as Error).message }];
  }
  const read = { name: 'read', ok: true, detail: `The token can read ${name} on ${target.baseUrl}.` };
  return [read, ...writeChecks(repository, name)];
}

/**
 * The open pull request whose head is `branch` of this same repository. Gitea's list has no head
 * filter (only `GET …/pulls/{base}/{head}`, which a branch name with `/` cannot travel through on
 * every version), so open pull requests are read page by page.
 */
async function findOpenPull(
  request: GiteaRequest,
  path: string,
  name: string,
  branch: string,
): Promise<GiteaPull | undefined> {
  for (let page = 1; page <= PAGES; page++) {
    const pulls = await request<GiteaPull[]>('GET', `${path}/pulls`, {
      query: { state: 'open', page, limit: PAGE },
    });
    const found = pulls.find(
      (pull) =>
        pull.head?.ref === branch &&
        (!pull.head.repo?.full_name || pull.head.repo.full_name.toLowerCase() === name.toLowerCase()),
    );
    if (found || pulls.length < PAGE) return found;
  }
  return undefined;
}

function writeChecks(repository: GiteaRepository, name: string): HostCheck[] {
  const push = repository.permissions?.push === true && !repository.archived;
  const pulls = repository.has_pull_requests !== false;
  return [
    {
      name: 'push',
      ok: push,
      detail: repository.archived
        ? `${name} is archived, so nothing can be pushed to it.`
        : push
          ? `The token's user may push to ${name} (the token itself needs the write:repository scope).`
          : `The token's user may not push to ${name}: make it a collaborator with Write access (or a member of a team with it).`,
    },
    {
      name: 'pull_request',
      ok: push && pulls,
      detail: !pulls
        ? `Pull requests are turned off for ${name} (Settings → Repository → Pull Requests).`
        : push
          ? `The token may open pull requests on ${name}.`
          : `Without write access the token cannot open pull requests on ${name}.`,
    },
  ];
}
