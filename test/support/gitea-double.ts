/**
 * A stateful stand-in for the Gitea (and Forgejo) REST API, `/api/v1`, for the parts the `gitea`
 * host uses, served on loopback so the host's client talks to it through its base URL. Shapes and
 * status codes follow Gitea's API reference (the swagger served at `/api/swagger`, generated from
 * routers/api/v1/repo/pull.go and repo.go) and its structs (modules/structs/pull.go, repo.go):
 * - `POST /repos/{owner}/{repo}/pulls` (repoCreatePullRequest) → 201 PullRequest; 403; 404; 409
 *   when an unmerged pull request exists for the same head and base, with the message of
 *   `ErrPullRequestAlreadyExists`: "pull request already exists for these targets [id: …, issue_id:
 *   N, head_repo_id: …, base_repo_id: …, head_branch: …, base_branch: …]"; 422 validation errors;
 *   423 `repoArchivedError` for an archived repository.
 * - `GET /repos/{owner}/{repo}/pulls/{index}` (repoGetPullRequest) → 200 PullRequest, 404.
 * - `GET /repos/{owner}/{repo}/pulls?state=open&page=&limit=` (repoListPullRequests) → 200 array,
 *   `X-Total-Count` and `Link` headers; no filter by head branch.
 * - `PATCH /repos/{owner}/{repo}/pulls/{index}` (repoEditPullRequest) → 201 PullRequest (Gitea
 *   answers 201 here, not 200); 403; 404.
 * - `GET /repos/{owner}/{repo}` (repoGet) → 200 Repository with `archived`, `has_pull_requests`
 *   and, for the caller, `permissions: { admin, push, pull }`.
 * - `GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission` (repoGetRepoPermissions) →
 *   200 `{ permission, role_name, user }`, `permission` the user's access mode (`none`, `read`,
 *   `write`, `admin`, `owner`); 403 unless the caller is a repository admin (or the user asked about).
 * - Labels (routers/api/v1/repo/label.go, issue_label.go): `GET /repos/{owner}/{repo}/labels?page=&limit=`
 *   → 200 Label array; `POST …/labels` `{ name, color }` (color `#rrggbb`) → 201 Label, 422;
 *   `POST …/issues/{index}/labels` `{ labels: [ids] }` → 200 the labels, 404, 422 for an
 *   id the repository lacks; `DELETE …/issues/{index}/labels/{id}` → 204, 422 for an unknown id.
 *   A pull request is an issue of the same index. 403 to a caller that may not write issues.
 * Errors are `APIError` `{ message, url }`; not found is `{ errors, message: "The target couldn't
 * be found.", url }`; a missing or unknown token 401 (its message varies across versions). Gitea has
 * no rate limit of its own; a proxy in front of it may answer 429 with `Retry-After`, 502 or 503.
 * Authentication is `Authorization: token …` (or `Bearer …`).
 */
import {
  authorizationToken,
  type DoubleReply,
  type DoubleRequest,
  type DoubleServer,
  doubledRepository,
  startDoubleServer,
} from './double-server.js';
import { type HookSender, hookSender } from './host-hooks.js';

/** A failure the next requests answer with, before any other check. */
export type GiteaFault =
  | 'server_error'
  | 'service_unavailable'
  | 'too_many_requests'
  | 'not_found'
  | 'forbidden';

export interface DoubleGiteaPull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  /** The ids of its labels. */
  labels?: number[];
  /** Set when the test merged it (a closed pull request that was merged). */
  merged?: boolean;
  created_at: string;
  updated_at: string;
}

export interface DoubleGiteaRepository {
  owner: string;
  name: string;
  archived: boolean;
  /** Whether the caller may push (Gitea's `permissions.push`). */
  push: boolean;
  pulls: DoubleGiteaPull[];
  /** Comments posted on its issues' and pull requests' threads, oldest first. */
  comments: { number: number; body: string }[];
  /** Whether the caller is the repository's admin (Gitea's `permissions.admin`). Default true. */
  admin: boolean;
  /** Users' access modes on it by login, lower case (the owner is `owner`); anyone else has none. */
  collaborators: Record<string, 'read' | 'write' | 'admin'>;
  /** The repository's labels. */
  labels: { id: number; name: string; color: string }[];
  /** When set, label writes answer 403, as to a caller that may not write issues. */
  refuseLabels?: boolean;
}

export interface GiteaDouble extends DoubleServer<GiteaFault>, HookSender {
  repository(
    owner: string,
    name: string,
    options?: { archived?: boolean; push?: boolean; admin?: boolean },
  ): DoubleGiteaRepository;
}

export interface GiteaDoubleOptions {
  token: string;
  /** Where `html_url`s point. Default `https://gitea.example.com`. */
  webBase?: string;
  /** When given, the head must be an existing branch (else 404, as Gitea does). */
  hasBranch?: (owner: string, repo: string, branch: string) => boolean;
}

export async function startGiteaDouble(options: GiteaDoubleOptions): Promise<GiteaDouble> {
  const webBase = options.webBase ?? 'https://gitea.example.com';
  const repositories = new Map<string, DoubleGiteaRepository>();
  const swagger = `${webBase}/api/swagger`;
  const error = (status: number, message: string, headers: Record<string, string> = {}): DoubleReply => ({
    status,
    json: { message, url: swagger },
    headers,
  });
  const notFound = (): DoubleReply => ({
    status: 404,
    json: { errors: ['not found'], message: "The target couldn't be found.", url: swagger },
  });

  const repositoryJson = (repository: DoubleGiteaRepository) => ({
    id: 11,
    owner: { id: 3, login: repository.owner },
    name: repository.name,
    full_name: `${repository.owner}/${repository.name}`,
    private: true,
    html_url: `${webBase}/${repository.owner}/${repository.name}`,
    clone_url: `${webBase}/${repository.owner}/${repository.name}.git`,
    default_branch: 'main',
    archived: repository.archived,
    has_pull_requests: true,
    permissions: { admin: repository.admin, push: repository.push, pull: true },
  });
  const pullJson = (repository: DoubleGiteaRepository, pull: DoubleGiteaPull) => {
    const repo = repositoryJson(repository);
    return {
      id: 900 + pull.number,
      url: `${webBase}/${repository.owner}/${repository.name}/pulls/${pull.number}`,
      number: pull.number,
      user: { id: 7, login: 'agentjobs-bot' },
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: /^\s*(wip:|\[wip\])/i.test(pull.title),
      html_url: `${webBase}/${repository.owner}/${repository.name}/pulls/${pull.number}`,
      diff_url: `${webBase}/${repository.owner}/${repository.name}/pulls/${pull.number}.diff`,
      mergeable: true,
      merged: pull.merged ?? false,
      base: { label: pull.base, ref: pull.base, sha: '0'.repeat(40), repo_id: 11, repo },
      head: { label: pull.head, ref: pull.head, sha: 'a'.repeat(40), repo_id: 11, repo },
      created_at: pull.created_at,
      updated_at: pull.updated_at,
    };
  };

  /** The labels API (see the file's comment), on a repository or on a pull request as an issue. */
  const labelReply = (request: DoubleRequest, [, owner, name, index, id]: RegExpExecArray): DoubleReply => {
    const target = repositories.get(
      `${decodeURIComponent(owner ?? '')}/${decodeURIComponent(name ?? '')}`.toLowerCase(),
    );
    if (!target) return notFound();
    const input = JSON.parse(request.body || '{}') as { name?: unknown; color?: unknown; labels?: unknown };
    const labelJson = (label: { id: number; name: string; color: string }) => ({
      ...label,
      description: '',
      exclusive: false,
      url: `${webBase}/api/v1/repos/${target.owner}/${target.name}/labels/${label.id}`,
    });
    if (index === undefined && id === undefined && request.method === 'GET') {
      const limit = Number(request.url.searchParams.get('limit') ?? 50);
      const page = Number(request.url.searchParams.get('page') ?? 1);
      return { status: 200, json: target.labels.slice((page - 1) * limit, page * limit).map(labelJson) };
    }
    if (target.refuseLabels || !target.push) return error(403, 'user should have permission to write issues');
    if (index === undefined && id === undefined && request.method === 'POST') {
      if (
        typeof input.name !== 'string' ||
        typeof input.color !== 'string' ||
        !/^#?[0-9a-f]{6}$/i.test(input.color)
      )
        return error(422, '[Name Color]: Required');
      const label = { id: 100 + target.labels.length, name: input.name, color: input.color.replace('#', '') };
      target.labels.push(label);
      return { status: 201, json: labelJson(label) };
    }
    const pull = target.pulls.find((candidate) => candidate.number === Number(index));
    if (index === undefined || !pull) return notFound();
    pull.labels ??= [];
    if (id === undefined && request.method === 'POST') {
      const ids = Array.isArray(input.labels) ? input.labels : [];
      if (!ids.every((each) => target.labels.some((label) => label.id === each)))
        return error(422, 'label does not exist');
      for (const each of ids as number[]) if (!pull.labels.includes(each)) pull.labels.push(each);
      const on = pull.labels;
      return { status: 200, json: target.labels.filter((label) => on.includes(label.id)).map(labelJson) };
    }
    if (id !== undefined && request.method === 'DELETE') {
      if (!target.labels.some((label) => label.id === Number(id))) return error(422, 'label does not exist');
      pull.labels = pull.labels.filter((each) => each !== Number(id));
      return { status: 204 };
    }
    return notFound();
  };

  const double = await startDoubleServer<GiteaFault>((request, fault) => {
    const { method, url } = request;
    if (fault === 'server_error') return error(500, 'internal server error');
    if (fault === 'service_unavailable') return { status: 503, text: 'Service Unavailable\n' };
    if (fault === 'too_many_requests')
      return { status: 429, text: 'Too Many Requests\n', headers: { 'retry-after': '1' } };
    if (fault === 'not_found') return notFound();
    if (fault === 'forbidden')
      return error(403, 'token does not have at least one of required scope(s): [write:repository]');

    if (authorizationToken(request.headers) !== options.token)
      return error(401, 'invalid username, password or token');

    // "Add a comment to an issue" (swagger `issueCreateComment`): a pull request is an issue to
    // Gitea. 201 with the comment; 422 without a body.
    const comment = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (comment && method === 'POST') {
      const target = repositories.get(
        `${decodeURIComponent(comment[1] ?? '')}/${decodeURIComponent(comment[2] ?? '')}`.toLowerCase(),
      );
      if (!target) return notFound();
      const { body: text } = JSON.parse(request.body || '{}') as { body?: unknown };
      if (typeof text !== 'string' || text === '') return error(422, '[Body]: Required');
      const number = Number(comment[3]);
      target.comments.push({ number, body: text });
      const id = 3000 + target.comments.length;
      return {
        status: 201,
        json: {
          id,
          html_url: `${webBase}/${target.owner}/${target.name}/issues/${number}#issuecomment-${id}`,
          body: text,
          user: { id: 7, login: 'agentjobs-bot' },
        },
      };
    }

    const labels = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)(?:\/issues\/(\d+))?\/labels(?:\/(\d+))?$/.exec(
      url.pathname,
    );
    if (labels) return labelReply(request, labels);

    const permission = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/.exec(
      url.pathname,
    );
    if (permission && method === 'GET') {
      const target = repositories.get(
        `${decodeURIComponent(permission[1] ?? '')}/${decodeURIComponent(permission[2] ?? '')}`.toLowerCase(),
      );
      if (!target) return notFound();
      if (!target.admin)
        return error(
          403,
          'Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own',
        );
      const login = decodeURIComponent(permission[3] ?? '');
      const mode =
        login.toLowerCase() === target.owner.toLowerCase()
          ? 'owner'
          : (target.collaborators[login.toLowerCase()] ?? 'none');
      return {
        status: 200,
        json: { permission: mode, role_name: mode, user: { id: 5000 + login.length, login } },
      };
    }

    const match = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)(\/pulls(?:\/(\d+))?)?$/.exec(url.pathname);
    const key = match ? `${decodeURIComponent(match[1] ?? '')}/${decodeURIComponent(match[2] ?? '')}` : '';
    const repository = repositories.get(key.toLowerCase());
    if (!match || !repository) return notFound();
    const [, , , pulls, number] = match;

    if (!pulls && method === 'GET') return { status: 200, json: repositoryJson(repository) };
    if (pulls && !number && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 30) || 30, 50);
      const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
      const found = repository.pulls
        .filter((pull) => state === 'all' || pull.state === state)
        .sort((a, b) => b.number - a.number);
      return {
        status: 200,
        json: found.slice((page - 1) * limit, page * limit).map((pull) => pullJson(repository, pull)),
        headers: { 'x-total-count': String(found.length) },
      };
    }
    if (number && method === 'GET') {
      const pull = repository.pulls.find((candidate) => candidate.number === Number(number));
      return pull ? { status: 200, json: pullJson(repository, pull) } : notFound();
    }
    if (!pulls || method === 'GET') return notFound();
    if (repository.archived) return error(423, 'repo is archived');
    if (!repository.push) return error(403, 'user should have a permission to write to a repository');
    const input = JSON.parse(request.body || '{}') as Record<string, unknown>;
    const now = new Date().toISOString();

    if (!number && method === 'POST') {
      const { title, head, base } = input as Record<string, string | undefined>;
      if (!title || !head || !base)
        return { status: 422, json: { message: '[Title]: Required', url: swagger } };
      if (head === base)
        return error(422, 'Invalid PullRequest: There are no changes between the head and the base');
      if (options.hasBranch && !options.hasBranch(repository.owner, repository.name, head)) return notFound();
      const existing = repository.pulls.find(
        (pull) => pull.state === 'open' && pull.head === head && pull.base === base,
      );
      if (existing)
        return error(
          409,
          `pull request already exists for these targets [id: ${900 + existing.number}, issue_id: ${existing.number}, head_repo_id: 11, base_repo_id: 11, head_branch: ${head}, base_branch: ${base}]`,
        );
      const pull: DoubleGiteaPull = {
        number: repository.pulls.length + 1,
        title,
        body: typeof input.body === 'string' ? input.body : '',
        head,
        base,
        state: 'open',
        created_at: now,
        updated_at: now,
      };
      repository.pulls.push(pull);
      return { status: 201, json: pullJson(repository, pull) };
    }
    if (number && method === 'PATCH') {
      const pull = repository.pulls.find((candidate) => candidate.number === Number(number));
      if (!pull) return notFound();
      if (typeof input.title === 'string') pull.title = input.title;
      if (typeof input.body === 'string') pull.body = input.body;
      if (input.state === 'open' || input.state === 'closed') pull.state = input.state;
      pull.updated_at = now;
      return { status: 201, json: pullJson(repository, pull) };
    }
    return notFound();
  });

  return {
    ...double,
    ...hookSender('gitea', webBase),
    repository(owner, name, settings = {}) {
      const repository = doubledRepository(repositories, owner, name, settings, { admin: true, labels: [] });
      if (settings.admin !== undefined) repository.admin = settings.admin;
      return repository;
    },
  };
}
