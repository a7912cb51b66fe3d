/**
 * The `gitlab` code host (docs/code-hosts.md): gitlab.com and self-managed GitLab, through a personal,
 * project or group access token. git pushes over HTTPS with the token in its environment
 * (`askpassEnv`, user name `oauth2`); merge requests go through the REST API (v4, `gitlab-client.ts`).
 *
 * Project settings (`hostSettings`, none of them secret):
 * - `apiUrl`: the instance's base URL (`https://gitlab.example.com`, or with the relative path it
 *   is installed under); a trailing `/api/v4` is dropped. Default: the repository URL's origin.
 * - `projectPath`: the project's full path (`group/subgroup/docs`). Default: the repository URL's
 *   path below the base URL, without `.git`.
 *
 * A draft is written as GitLab writes it: the title starts with `Draft: `. Updating a merge request
 * keeps the draft state it has on GitLab (a reviewer may have marked it ready).
 */
import { z } from 'zod';
import type { Project } from '../domain/project.js';
import { askpassEnv, type GitCredentials } from '../git/run.js';
import {
  createGitlabClient,
  explainGitlabError,
  GITLAB_ROLES,
  type GitlabClient,
  gitlabMessage,
  gitlabStatus,
} from './gitlab-client.js';
import type { HostRetryOptions } from './http.js';
import { labelGitlabMergeRequest } from './labels.js';
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

export interface GitlabHostOptions {
  /** The project's token in plain text, or null when it has none. */
  secret: ProjectSecret;
  /** A context repository's token, for its threads (replies, authors' permissions). */
  contextSecret?: ContextSecret;
  /** Where git's askpass script is written (see `askpassEnv`). */
  askpassDir: string;
  retry?: HostRetryOptions;
}

const settingsSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }).optional(),
  projectPath: z
    .string()
    .regex(/^[\w.-]+(?:\/[\w.-]+)+$/, 'must look like group/project')
    .optional(),
});

/** Where a GitLab project lives: the instance's base URL and the project's full path. */
export interface GitlabTarget {
  baseUrl: string;
  projectPath: string;
}

/** Reads a project's GitLab settings, filling what the repository URL implies; throws `CodeHostError`. */
export function gitlabTarget(project: Pick<Project, 'repository' | 'hostSettings'>): GitlabTarget {
  const parsed = settingsSchema.safeParse(project.hostSettings);
  if (!parsed.success) throw settingsError('GitLab', parsed.error.issues[0]);
  const settings = parsed.data;
  const url = repositoryUrl(project.repository);
  const baseUrl = instanceBase(settings.apiUrl ?? url?.origin ?? '', /\/api\/v4$/);
  if (!baseUrl) throw new CodeHostError('A GitLab project needs an https:// repository URL, or an apiUrl.');
  // Below the base's own path: an instance under https://HOST/gitlab serves /gitlab/group/project.
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const sameInstance = url !== null && url.origin === new URL(baseUrl).origin;
  const below =
    sameInstance && basePath && url.pathname.startsWith(`${basePath}/`)
      ? new URL(url.pathname.slice(basePath.length), url.origin)
      : url;
  const segments = repositorySegments(below);
  const projectPath = settings.projectPath ?? (segments.length >= 2 ? segments.join('/') : '');
  if (!projectPath)
    throw new CodeHostError('The GitLab repository must be a URL like https://gitlab.com/GROUP/PROJECT.');
  return { baseUrl, projectPath };
}

/** A title as GitLab marks a draft; one that already says so is left alone. */
export function gitlabDraftTitle(title: string, draft: boolean): string {
  return draft && !/^\s*(\[draft\]|\(draft\)|draft:|draft\s-|draft\s)/i.test(title)
    ? `Draft: ${title}`
    : title;
}

interface MergeRequest {
  iid: number;
  web_url: string;
  state?: string;
  source_branch?: string;
  draft?: boolean;
  work_in_progress?: boolean;
}

interface GitlabProject {
  archived?: boolean;
  merge_requests_access_level?: string;
  merge_requests_enabled?: boolean;
  permissions?: {
    project_access?: { access_level?: number } | null;
    group_access?: { access_level?: number } | null;
  };
}

const DEVELOPER = 30;

/** A client of one GitLab project: its API, where it is, and its path under `/api/v4`. */
interface GitlabSession {
  api: GitlabClient;
  target: GitlabTarget;
  /** `/projects/group%2Fdocs`: GitLab takes the project's full path, encoded, as its id. */
  path: string;
  name: string;
}

const session = (target: GitlabTarget, api: GitlabClient): GitlabSession => ({
  api,
  target,
  path: `/projects/${encodeURIComponent(target.projectPath)}`,
  name: target.projectPath,
});

export function createGitlabHost(options: GitlabHostOptions): CodeHost {
  // GitLab takes any user name with a personal or project access token as the password; `oauth2`
  // is the one it documents, and the only one an OAuth token works with.
  const credentialsOf = async (project: Project): Promise<GitCredentials> => ({
    username: 'oauth2',
    token: await requireSecret(options.secret, project, 'GitLab'),
  });
  const client = async (project: Project, signal?: AbortSignal) => {
    const target = gitlabTarget(project);
    const { token } = await credentialsOf(project);
    return session(target, createGitlabClient(target.baseUrl, token, options.retry, signal));
  };
  /** The client for a thread's repository: the project's own, or a context repository's with its token. */
  const threadClient = async (project: Project, repository: ThreadRepository) => {
    if (repository.kind === 'content') return client(project);
    const { target, token } = await contextAccess(
      'gitlab',
      project,
      repository,
      options.contextSecret,
      gitlabTarget,
    );
    return session(target, createGitlabClient(target.baseUrl, token, options.retry));
  };

  return {
    kind: 'gitlab',

    async gitEnv(project) {
      return askpassEnv(options.askpassDir, await credentialsOf(project));
    },

    async openOrUpdatePullRequest(input) {
      return openOrUpdateMergeRequest(await client(input.project, input.signal), input);
    },

    async closePullRequest(input) {
      const { api, target, path } = await client(input.project, input.signal);
      try {
        const existing = await openMergeRequest(api, path, input.branch);
        if (!existing) return null;
        const closed = await api<MergeRequest>('PUT', `${path}/merge_requests/${existing.iid}`, {
          body: { state_event: 'close' },
        });
        return { url: closed.web_url, number: closed.iid };
      } catch (error) {
        throw await explainRefusal(api, target, error, 'closing the merge request');
      }
    },

    async pullRequestState(input) {
      return mergeRequestState(await client(input.project, input.signal), input.number);
    },

    async labelPullRequest(input) {
      const { api, path, name } = await client(input.project, input.signal);
      return labelGitlabMergeRequest(api, path, name, input);
    },

    async commentOnThread(project, thread, body) {
      const { api, target, path } = await threadClient(project, thread.repository);
      try {
        const kind = thread.type === 'pull_request' ? 'merge_requests' : 'issues';
        await api('POST', `${path}/${kind}/${thread.number}/notes`, { body: { body } });
      } catch (error) {
        throw await explainRefusal(api, target, error, 'commenting on the thread');
      }
    },

    async authorPermission(project, repository, author) {
      // The members API takes a user id; a Note Hook names its author's (`user.id`).
      if (typeof author.id !== 'number')
        return { canWrite: false, role: 'unknown (the event gave no user id)' };
      return memberPermission(await threadClient(project, repository), author.id, author.username);
    },

    async check(project): Promise<HostCheck[]> {
      const checks = await projectChecks(await client(project));
      checks.splice(1, 0, await gitReadCheck(project, options.askpassDir, () => credentialsOf(project)));
      return checks;
    },
  };
}

/** Opens the branch's merge request, or updates the one it has (a retried run, a follow-up). */
async function openOrUpdateMergeRequest(
  { api, target, path, name }: GitlabSession,
  input: PullRequestInput,
): Promise<PullRequestLink> {
  try {
    const created = await api<MergeRequest>('POST', `${path}/merge_requests`, {
      body: {
        source_branch: input.branch,
        target_branch: input.base,
        title: gitlabDraftTitle(input.title, input.draft),
        description: input.body,
      },
    });
    return { url: created.web_url, number: created.iid };
  } catch (error) {
    // A retried run or a follow-up: the branch has its merge request already (GitLab answers
    // 409 "Another open merge request already exists for this source branch: !N"); update and
    // reuse it. Other 409s (a missing target branch) are refusals.
    if (!(gitlabStatus(error) === 409 && /already exists/i.test(gitlabMessage(error))))
      throw await explainRefusal(api, target, error, 'opening the merge request');
  }
  try {
    const existing = await openMergeRequest(api, path, input.branch);
    if (!existing) {
      throw new CodeHostError(
        `GitLab says ${input.branch} has a merge request on ${name}, but none is open; try again.`,
        { isRetryable: true },
      );
    }
    const draft = existing.draft === true || existing.work_in_progress === true;
    const updated = await api<MergeRequest>('PUT', `${path}/merge_requests/${existing.iid}`, {
      body: { title: gitlabDraftTitle(input.title, draft), description: input.body },
    });
    return { url: updated.web_url, number: updated.iid };
  } catch (error) {
    throw await explainRefusal(api, target, error, 'updating the merge request');
  }
}

/** Merge request `number`'s state and branch; null when there is none. */
async function mergeRequestState({ api, target, path }: GitlabSession, number: number) {
  try {
    const found = await api<MergeRequest>('GET', `${path}/merge_requests/${number}`);
    // `locked` is a merge request being merged: still open until GitLab says `merged`.
    const state = found.state === 'merged' ? 'merged' : found.state === 'closed' ? 'closed' : 'open';
    return { number: found.iid, state, branch: found.source_branch ?? '' } as const;
  } catch (error) {
    if (gitlabStatus(error) === 404) return null;
    throw await explainRefusal(api, target, error, 'reading the merge request');
  }
}

/** Whether user `id` may write to the project: their effective role, their group's included. */
async function memberPermission({ api, path, name }: GitlabSession, id: number, username: string) {
  try {
    // "Get a member of a project, including inherited and invited members".
    const member = await api<{ access_level?: number; state?: string }>('GET', `${path}/members/all/${id}`);
    const level = member.access_level ?? 0;
    const active = member.state === undefined || member.state === 'active';
    return { canWrite: active && level >= DEVELOPER, role: active ? roleOf(level) : `${member.state}` };
  } catch (error) {
    if (gitlabStatus(error) === 404) return { canWrite: false, role: roleOf(null) };
    throw explainGitlabError(error, `reading ${username}'s membership`, name);
  }
}

/** The API's checks of `agentjobs project check`: reading the project, then pushing and merge requests. */
async function projectChecks({ api, target, path, name }: GitlabSession): Promise<HostCheck[]> {
  let found: GitlabProject;
  try {
    found = await api<GitlabProject>('GET', path);
  } catch (error) {
    const explained = explainGitlabError(error, 'reading the project', name);
    return [{ name: 'read', ok: false, detail: (explained as Error).message }];
  }
  const read = { name: 'read', ok: true, detail: `The token can read ${name} on ${target.baseUrl}.` };
  return [read, ...(await writeChecks(api, found, name))];
}

/** The token's user's role on the project: the higher of its project and group membership. */
function accessLevel(project: GitlabProject | null): number | null {
  const levels = [
    project?.permissions?.project_access?.access_level,
    project?.permissions?.group_access?.access_level,
  ].filter((level): level is number => typeof level === 'number');
  return levels.length ? Math.max(...levels) : null;
}

/** The branch's open merge request, or null. */
async function openMergeRequest(
  api: GitlabClient,
  path: string,
  branch: string,
): Promise<MergeRequest | null> {
  const open = await api<MergeRequest[]>('GET', `${path}/merge_requests`, {
    query: { source_branch: branch, state: 'opened' },
  });
  return open[0] ?? null;
}

const roleOf = (level: number | null) =>
  level === null ? 'no member' : (GITLAB_ROLES[level] ?? `access level ${level}`);

/**
 * A 403 can mean an archived project or too low a role; GitLab's answer does not say which, so the
 * project is read to tell the user what to change.
 */
async function explainRefusal(
  api: GitlabClient,
  target: GitlabTarget,
  error: unknown,
  what: string,
): Promise<unknown> {
  const name = target.projectPath;
  if (gitlabStatus(error) === 403) {
    const found = await api<GitlabProject>('GET', session(target, api).path).catch(() => null);
    if (found?.archived) {
      return new CodeHostError(
        `The GitLab project ${name} is archived, so it is read-only: unarchive it (Settings → General → Advanced), or point the project at another repository.`,
      );
    }
    const level = accessLevel(found);
    if (found && (level === null || level < DEVELOPER)) {
      return new CodeHostError(
        `GitLab denied ${what} on ${name} (403): the token's user has the ${roleOf(level)} role there, and merge requests need Developer or higher (a project access token: Developer).`,
      );
    }
  }
  return explainGitlabError(error, what, name);
}

/** Push and merge-request checks from the project's answer and, when GitLab tells, the token's scopes. */
async function writeChecks(api: GitlabClient, project: GitlabProject, name: string): Promise<HostCheck[]> {
  // GET /personal_access_tokens/self (GitLab 15.5+) names the token's scopes, for personal, project
  // and group access tokens; an older GitLab or an OAuth token cannot say, and the role must do.
  const scopes = await api<{ scopes?: string[] }>('GET', '/personal_access_tokens/self')
    .then((token) => token.scopes ?? null)
    .catch(() => null);
  const level = accessLevel(project);
  const developer = level !== null && level >= DEVELOPER;
  const canWriteGit = scopes === null || scopes.includes('api') || scopes.includes('write_repository');
  const canUseApi = scopes === null || scopes.includes('api');
  const mergeRequests =
    project.merge_requests_access_level !== 'disabled' && project.merge_requests_enabled !== false;
  const push = !project.archived && developer && canWriteGit;
  const pullRequest = !project.archived && developer && canUseApi && mergeRequests;
  const role = `the token's user has the ${roleOf(level)} role on ${name}`;
  return [
    {
      name: 'push',
      ok: push,
      detail: project.archived
        ? `${name} is archived, so nothing can be pushed to it.`
        : !developer
          ? `The token may not push: ${role}; give it Developer or higher.`
          : !canWriteGit
            ? `The token may not push: it lacks the write_repository (or api) scope.`
            : `The token may push branches to ${name} (${role}${scopes ? `; scopes ${scopes.join(', ')}` : ''}).`,
    },
    {
      name: 'pull_request',
      ok: pullRequest,
      detail: !mergeRequests
        ? `Merge requests are turned off for ${name} (Settings → General → Visibility).`
        : !canUseApi
          ? 'The token cannot open merge requests: it lacks the api scope.'
          : pullRequest
            ? `The token may open merge requests on ${name}.`
            : `Without Developer access to an unarchived project the token cannot open merge requests on ${name}.`,
    },
  ];
}
