/**
 * A stateful stand-in for GitLab's REST API (v4), for the parts the `gitlab` host uses, served on
 * loopback so the host's real client talks to it through its base URL. Shapes and status codes
 * follow GitLab's published REST reference:
 * - "Merge requests API" (docs.gitlab.com/api/merge_requests/):
 *   `POST /projects/:id/merge_requests` → 201 merge request (`iid`, `web_url`, `draft`, `state`
 *   `opened`…); 409 with `message: ["Another open merge request already exists for this source
 *   branch: !N"]` (lib/api/merge_requests.rb `handle_merge_request_errors!` answers
 *   `conflict!(errors[:validate_branches])`, and a missing source branch is such an error too);
 *   `GET /projects/:id/merge_requests?source_branch=&state=opened` → 200 array;
 *   `GET /projects/:id/merge_requests/:merge_request_iid` → 200 merge request, 404;
 *   `PUT /projects/:id/merge_requests/:merge_request_iid` → 200 merge request. A title starting
 *   with `Draft:` makes a draft. Its `labels`, `add_labels` and `remove_labels` (comma-separated
 *   names) set the merge request's `labels`, making a label the project lacks; a caller who may not
 *   label gets 200 with the labels unchanged (MergeRequests::UpdateService drops what the user may
 *   not change rather than refusing).
 * - "Projects API", get a single project (docs.gitlab.com/api/projects/): 200 with `archived`,
 *   `merge_requests_access_level`, `web_url`, `path_with_namespace` and, for the caller,
 *   `permissions: { project_access: { access_level }, group_access }`. `:id` is the ID or the
 *   URL-encoded full path (`group%2Fproject`).
 * - "Personal access tokens API": `GET /personal_access_tokens/self` → 200 with `scopes`.
 * - "REST API troubleshooting" / status codes: 401 `{"message":"401 Unauthorized"}`, 403
 *   `{"message":"403 Forbidden"}` (also for writes to an archived project, which is read-only),
 *   404 `{"message":"404 Project Not Found"}`.
 * - "Rate limits" (docs.gitlab.com/security/rate_limits/): 429 with the plain-text body
 *   `Retry later` and `Retry-After`, `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`.
 * Authentication is the `PRIVATE-TOKEN` header (or `Authorization: Bearer`).
 */
import {
  authorizationToken,
  type DoubleReply,
  type DoubleServer,
  startDoubleServer,
} from './double-server.js';
import { doubleUserId, type HookSender, hookSender } from './host-hooks.js';

/** A failure the next requests answer with, before any other check. */
export type GitlabFault = 'server_error' | 'bad_gateway' | 'too_many_requests' | 'not_found' | 'forbidden';

export interface DoubleMergeRequest {
  iid: number;
  title: string;
  description: string | null;
  source_branch: string;
  target_branch: string;
  state: 'opened' | 'closed' | 'merged';
  labels?: string[];
  created_at: string;
  updated_at: string;
}

export interface DoubleProject {
  path: string;
  archived: boolean;
  /** The caller's role: 30 Developer, 20 Reporter… (GitLab's access levels). */
  accessLevel: number;
  mergeRequests: DoubleMergeRequest[];
  /** Notes posted on its merge requests' (`merge_requests`) and issues' (`issues`) threads, oldest first. */
  notes: { on: 'merge_requests' | 'issues'; iid: number; body: string }[];
  /** When set, the caller may not label: label changes are dropped, as GitLab does. */
  ignoreLabels?: boolean;
  /** Its members by user name (their ids are `doubleUserId`'s, as in the double's hooks) and access level. */
  members: Record<string, number>;
}

export interface GitlabDouble extends Omit<DoubleServer<GitlabFault>, 'url'>, HookSender {
  /** The instance's base URL, as the client's base URL or a project's `apiUrl`. */
  url: string;
  project(path: string, options?: { archived?: boolean; accessLevel?: number }): DoubleProject;
  /** The scopes `personal_access_tokens/self` reports. Default `['api', 'write_repository']`. */
  scopes: string[];
}

export interface GitlabDoubleOptions {
  token: string;
  /** Where `web_url`s point. Default `https://gitlab.example.com`. */
  webBase?: string;
  /** When given, the source branch must exist (else 409, as GitLab does). */
  hasBranch?: (projectPath: string, branch: string) => boolean;
}

const DEVELOPER = 30;

export async function startGitlabDouble(options: GitlabDoubleOptions): Promise<GitlabDouble> {
  const webBase = options.webBase ?? 'https://gitlab.example.com';
  const projects = new Map<string, DoubleProject>();
  const state = { scopes: ['api', 'write_repository'] };

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): DoubleReply => ({
    status,
    json: body,
    headers,
  });
  const mergeRequestJson = (project: DoubleProject, mr: DoubleMergeRequest) => {
    const draft = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-|draft\s)/i.test(mr.title);
    return {
      id: 5000 + mr.iid,
      iid: mr.iid,
      project_id: 42,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      target_branch: mr.target_branch,
      source_branch: mr.source_branch,
      author: { id: 7, username: 'agentjobs-bot', name: 'agentjobs' },
      source_project_id: 42,
      target_project_id: 42,
      draft,
      work_in_progress: draft,
      labels: mr.labels ?? [],
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      sha: 'a'.repeat(40),
      references: { short: `!${mr.iid}`, full: `${project.path}!${mr.iid}` },
      web_url: `${webBase}/${project.path}/-/merge_requests/${mr.iid}`,
    };
  };

  const double = await startDoubleServer<GitlabFault>((request, fault) => {
    const { method, url } = request;
    if (fault === 'server_error') return json(500, { message: '500 Internal Server Error' });
    if (fault === 'bad_gateway')
      return {
        status: 502,
        text: '<html><body><h1>502 Bad Gateway</h1></body></html>',
        headers: { 'content-type': 'text/html' },
      };
    if (fault === 'too_many_requests') {
      const reset = String(Math.floor(Date.now() / 1000) + 1);
      return {
        status: 429,
        text: 'Retry later\n',
        headers: {
          'retry-after': '1',
          'ratelimit-limit': '600',
          'ratelimit-remaining': '0',
          'ratelimit-reset': reset,
        },
      };
    }
    if (fault === 'not_found') return json(404, { message: '404 Project Not Found' });
    if (fault === 'forbidden') return json(403, { message: '403 Forbidden' });

    const token = request.headers['private-token'] ?? authorizationToken(request.headers);
    if (token !== options.token) return json(401, { message: '401 Unauthorized' });

    if (url.pathname === '/api/v4/personal_access_tokens/self' && method === 'GET') {
      return json(200, {
        id: 1,
        name: 'agentjobs',
        revoked: false,
        created_at: '2026-01-01T00:00:00.000Z',
        scopes: state.scopes,
        user_id: 7,
        active: true,
        expires_at: '2027-01-01',
      });
    }
    // "Create new merge request note" / "Create new issue note" (docs.gitlab.com/api/notes):
    // 201 with the note; 400 `body is missing` without one.
    const note = /^\/api\/v4\/projects\/([^/]+)\/(merge_requests|issues)\/(\d+)\/notes$/.exec(url.pathname);
    if (note && method === 'POST') {
      const target = projects.get(decodeURIComponent(note[1] ?? ''));
      if (!target) return json(404, { message: '404 Project Not Found' });
      const { body: text } = JSON.parse(request.body || '{}') as { body?: unknown };
      if (typeof text !== 'string' || text === '') return json(400, { error: 'body is missing' });
      const on = note[2] as 'merge_requests' | 'issues';
      target.notes.push({ on, iid: Number(note[3]), body: text });
      return json(201, {
        id: 700 + target.notes.length,
        body: text,
        author: { id: 7, username: 'agentjobs-bot', name: 'agentjobs' },
        noteable_type: on === 'issues' ? 'Issue' : 'MergeRequest',
        noteable_iid: Number(note[3]),
        system: false,
      });
    }
    const member = /^\/api\/v4\/projects\/([^/]+)\/members\/all\/(\d+)$/.exec(url.pathname);
    if (member && method === 'GET') {
      const target = projects.get(decodeURIComponent(member[1] ?? ''));
      if (!target) return json(404, { message: '404 Project Not Found' });
      const found = Object.entries(target.members).find(([name]) => doubleUserId(name) === Number(member[2]));
      if (!found) return json(404, { message: '404 Not found' });
      const [username, level] = found;
      return json(200, {
        id: doubleUserId(username),
        username,
        name: username,
        state: 'active',
        access_level: level,
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: null,
      });
    }
    // The raw path keeps `%2F` inside the project's id: split first, then decode.
    const match = /^\/api\/v4\/projects\/([^/]+)(\/merge_requests(?:\/(\d+))?)?$/.exec(url.pathname);
    const project = match ? projects.get(decodeURIComponent(match[1] ?? '')) : undefined;
    if (!match || !project) return json(404, { message: '404 Project Not Found' });
    const [, , mergeRequests, iid] = match;

    if (!mergeRequests && method === 'GET') {
      return json(200, {
        id: 42,
        path_with_namespace: project.path,
        web_url: `${webBase}/${project.path}`,
        default_branch: 'main',
        archived: project.archived,
        merge_requests_enabled: true,
        merge_requests_access_level: 'enabled',
        permissions: {
          project_access: { access_level: project.accessLevel, notification_level: 3 },
          group_access: null,
        },
      });
    }
    if (mergeRequests && !iid && method === 'GET') {
      const wanted = url.searchParams.get('state') ?? 'all';
      const source = url.searchParams.get('source_branch');
      const target = url.searchParams.get('target_branch');
      const found = project.mergeRequests.filter(
        (mr) =>
          (wanted === 'all' || mr.state === wanted) &&
          (!source || mr.source_branch === source) &&
          (!target || mr.target_branch === target),
      );
      return json(
        200,
        found.map((mr) => mergeRequestJson(project, mr)),
        { 'x-total': String(found.length), 'x-page': '1', 'x-per-page': '20', 'x-total-pages': '1' },
      );
    }
    if (iid && method === 'GET') {
      const mr = project.mergeRequests.find((candidate) => candidate.iid === Number(iid));
      return mr ? json(200, mergeRequestJson(project, mr)) : json(404, { message: '404 Not found' });
    }
    if (!mergeRequests) return json(404, { message: '404 Not Found' });
    // Archived projects are read-only, and merge requests need Developer.
    if (project.archived || project.accessLevel < DEVELOPER) return json(403, { message: '403 Forbidden' });
    const input = JSON.parse(request.body || '{}') as Record<string, unknown>;
    const now = new Date().toISOString();

    if (!iid && method === 'POST') {
      const {
        title,
        source_branch: source,
        target_branch: target,
      } = input as Record<string, string | undefined>;
      if (!title || !source || !target)
        return json(400, {
          error: 'title, source_branch, target_branch are missing, at least one parameter must be provided',
        });
      if (options.hasBranch && !options.hasBranch(project.path, source))
        return json(409, { message: [`Source branch "${source}" does not exist`] });
      const existing = project.mergeRequests.find(
        (mr) => mr.state === 'opened' && mr.source_branch === source,
      );
      if (existing)
        return json(409, {
          message: [`Another open merge request already exists for this source branch: !${existing.iid}`],
        });
      const mr: DoubleMergeRequest = {
        iid: project.mergeRequests.length + 1,
        title,
        description: typeof input.description === 'string' ? input.description : null,
        source_branch: source,
        target_branch: target,
        state: 'opened',
        created_at: now,
        updated_at: now,
      };
      project.mergeRequests.push(mr);
      return json(201, mergeRequestJson(project, mr));
    }
    if (iid && method === 'PUT') {
      const mr = project.mergeRequests.find((candidate) => candidate.iid === Number(iid));
      if (!mr) return json(404, { message: '404 Not found' });
      if (typeof input.title === 'string') mr.title = input.title;
      if (typeof input.description === 'string') mr.description = input.description;
      if (input.state_event === 'close') mr.state = 'closed';
      if (!project.ignoreLabels) mr.labels = labelsAfter(mr.labels ?? [], input);
      mr.updated_at = now;
      return json(200, mergeRequestJson(project, mr));
    }
    return json(404, { message: '404 Not Found' });
  });

  return {
    ...double,
    ...hookSender('gitlab', webBase),
    get scopes() {
      return state.scopes;
    },
    set scopes(scopes: string[]) {
      state.scopes = scopes;
    },
    project(path, settings = {}) {
      const project = projects.get(path) ?? {
        path,
        archived: false,
        accessLevel: 40,
        mergeRequests: [],
        notes: [],
        members: {},
      };
      if (settings.archived !== undefined) project.archived = settings.archived;
      if (settings.accessLevel !== undefined) project.accessLevel = settings.accessLevel;
      projects.set(path, project);
      return project;
    },
  };
}

/** A merge request's labels after an update's `labels`, `add_labels` and `remove_labels`. */
function labelsAfter(labels: string[], input: Record<string, unknown>): string[] {
  const names = (value: unknown) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [];
  let after = input.labels === undefined ? labels : names(input.labels);
  for (const name of names(input.add_labels)) if (!after.includes(name)) after = [...after, name];
  const removed = names(input.remove_labels);
  return after.filter((name) => !removed.includes(name));
}
