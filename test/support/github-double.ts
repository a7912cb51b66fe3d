/**
 * A stateful stand-in for GitHub's REST API, for the parts the `github` host uses, served on
 * loopback so the real Octokit client talks to it through its `baseUrl`. Shapes and status codes
 * follow GitHub's published REST reference (API version 2022-11-28):
 * - "REST API endpoints for pull requests" (docs.github.com/en/rest/pulls/pulls):
 *   `POST /repos/{owner}/{repo}/pulls` → 201 pull request, 403, 422 (`Validation Failed` with
 *   errors[].message "A pull request already exists for OWNER:BRANCH."; head `invalid` when the
 *   branch does not exist); `GET …/pulls?head=OWNER:BRANCH&state=open` → 200 array (filter format
 *   "user:ref-name"); `GET …/pulls/{pull_number}` → 200 pull request (`state`, `merged_at`),
 *   404; `PATCH …/pulls/{pull_number}` → 200 pull request, 403, 422.
 * - "REST API endpoints for labels" (…/rest/issues/labels): `POST /repos/{owner}/{repo}/issues/{issue_number}/labels`
 *   with `{ labels: [names] }` → 200 the labels (a name the repository lacks is made), 403,
 *   404, 422; `DELETE …/issues/{issue_number}/labels/{name}` → 200 the labels left, 404 "Label does
 *   not exist" when the issue lacks it. A pull request is an issue of the same number.
 * - "REST API endpoints for repositories" (docs.github.com/en/rest/repos/repos#get-a-repository):
 *   `GET /repos/{owner}/{repo}` → 200 with `archived` and, for the authenticated caller,
 *   `permissions {admin, maintain, push, triage, pull}`; 403; 404.
 * - "REST API endpoints for collaborators" (…/rest/collaborators/collaborators#get-repository-permissions-for-a-user):
 *   `GET /repos/{owner}/{repo}/collaborators/{username}/permission` → 200 `{ permission, role_name,
 *   user }`, `permission` the base role (maintain reads as `write`, triage as `read`; `none` for a
 *   user without access to a private repository); 403 "Must have push access to view collaborator
 *   permission." to a caller that may not push.
 * - "REST API endpoints for GitHub Apps" (…/rest/apps/apps#create-an-installation-access-token-for-an-app):
 *   `POST /app/installations/{installation_id}/access_tokens` with the App's JWT → 201 {token, expires_at}.
 * - "Rate limits for the REST API" and "Troubleshooting the REST API": `x-ratelimit-*` headers on
 *   every response; a secondary rate limit is 403 or 429 with a message saying so and `retry-after`;
 *   401 `Bad credentials`; 404 `Not Found` for a repository the token cannot see.
 * Errors have the documented body `{ message, documentation_url, status }`.
 */
import { createPublicKey, verify } from 'node:crypto';
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
export type GithubFault =
  | 'server_error'
  | 'too_many_requests'
  | 'secondary_rate_limit'
  | 'not_found'
  | 'archived';

export interface DoublePull {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  /** When it was merged (it is `closed` then); unset or null when not merged. */
  merged_at?: string | null;
  /** The names of its labels (the issue labels API's), in the order they were put on. */
  labels?: string[];
  created_at: string;
  updated_at: string;
}

export interface DoubleRepository {
  owner: string;
  name: string;
  archived: boolean;
  /** Whether the caller may push (GitHub's `permissions.push`). */
  push: boolean;
  pulls: DoublePull[];
  /** Comments posted on its issues' and pull requests' threads, oldest first. */
  comments: { number: number; body: string }[];
  /** When set, commenting answers 500 (an outage that hits only the service's replies). */
  refuseComments?: boolean;
  /** When set, labelling answers 403, as to a token without the Issues or Pull requests write permission. */
  refuseLabels?: boolean;
  /** Users' roles on it by login, lower case (the owner is `admin` besides); anyone else has none. */
  collaborators: Record<string, GithubRole>;
}

/** A repository role of GitHub's (custom roles aside). */
export type GithubRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

/** The base role the permission endpoint's `permission` says for each role. */
const BASE_ROLE: Record<GithubRole, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
};

/** `url` is the API base URL, as Octokit's `baseUrl` or a project's `apiUrl`. */
export interface GithubDouble extends DoubleServer<GithubFault>, HookSender {
  repository(owner: string, name: string, options?: { archived?: boolean; push?: boolean }): DoubleRepository;
}

export interface GithubDoubleOptions {
  /** The token that authenticates (as `Authorization: token …` or `Bearer …`). */
  token: string;
  /** Where `html_url`s point. Default `https://github.com`. */
  htmlBase?: string;
  /** When given, `head` must name an existing branch (else 422 `invalid`, as GitHub does). */
  hasBranch?: (owner: string, repo: string, branch: string) => boolean;
  /** A GitHub App whose JWTs (RS256, `iss` = appId) may mint installation tokens. */
  app?: { appId: string; publicKeyPem: string; installationId: string };
}

const DOCS = 'https://docs.github.com/rest';

export async function startGithubDouble(options: GithubDoubleOptions): Promise<GithubDouble> {
  const htmlBase = options.htmlBase ?? 'https://github.com';
  const repositories = new Map<string, DoubleRepository>();
  const tokens = new Set([options.token]);
  let minted = 0;
  let url = '';

  const pullJson = (repository: DoubleRepository, pull: DoublePull) => {
    const full = `${repository.owner}/${repository.name}`;
    const repo = { name: repository.name, full_name: full, owner: { login: repository.owner } };
    return {
      url: `${url}/repos/${full}/pulls/${pull.number}`,
      id: 1000 + pull.number,
      node_id: `PR_${pull.number}`,
      html_url: `${htmlBase}/${full}/pull/${pull.number}`,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      user: { login: 'agentjobs-bot' },
      body: pull.body,
      created_at: pull.created_at,
      updated_at: pull.updated_at,
      draft: pull.draft,
      merged_at: pull.merged_at ?? null,
      merged: Boolean(pull.merged_at),
      head: { label: `${repository.owner}:${pull.head}`, ref: pull.head, sha: '0'.repeat(40), repo },
      base: { label: `${repository.owner}:${pull.base}`, ref: pull.base, sha: '0'.repeat(40), repo },
    };
  };

  const handle = (request: DoubleRequest, fault: GithubFault | undefined): DoubleReply => {
    const { method, body } = request;
    const reply = (status: number, data: unknown, headers: Record<string, string> = {}): DoubleReply => ({
      status,
      ...(status === 204 ? {} : { json: data }),
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-github-media-type': 'github.v3; format=json',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-used': '1',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        'x-ratelimit-resource': 'core',
        ...headers,
      },
    });
    const error = (status: number, message: string, extra: Record<string, unknown> = {}, headers = {}) =>
      reply(status, { message, documentation_url: DOCS, status: String(status), ...extra }, headers);

    if (fault === 'server_error') return error(500, 'Server Error');
    if (fault === 'too_many_requests') return error(429, 'Too Many Requests', {}, { 'retry-after': '1' });
    if (fault === 'secondary_rate_limit')
      return error(
        403,
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        {},
        { 'retry-after': '1' },
      );
    if (fault === 'not_found') return error(404, 'Not Found');
    if (fault === 'archived') return error(403, 'Repository was archived so is read-only.');

    const authorization = request.headers.authorization ?? '';
    const appToken = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(request.url.pathname);
    if (appToken && method === 'POST') {
      if (!options.app || !validJwt(authorization, options.app))
        return error(401, 'A JSON web token could not be decoded');
      if (appToken[1] !== options.app.installationId) return error(404, 'Not Found');
      const token = `ghs_installation${++minted}_${Math.random().toString(36).slice(2)}`;
      tokens.add(token);
      return reply(201, {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { contents: 'write', pull_requests: 'write' },
        repository_selection: 'selected',
      });
    }
    const presented = authorizationToken(request.headers);
    if (!presented || !tokens.has(presented)) return error(401, 'Bad credentials');

    // "Create an issue comment" (docs.github.com/en/rest/issues/comments): a pull request's
    // conversation is its issue's. 201 with the comment; 404 for an issue the repository lacks.
    const comment = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(request.url.pathname);
    if (comment && method === 'POST') {
      const target = repositories.get(`${comment[1]}/${comment[2]}`.toLowerCase());
      if (!target) return error(404, 'Not Found');
      if (target.refuseComments) return error(500, 'Server Error');
      const { body: text } = JSON.parse(body || '{}') as { body?: unknown };
      if (typeof text !== 'string' || text === '')
        return error(422, 'Validation Failed', {
          errors: [{ resource: 'IssueComment', code: 'missing_field' }],
        });
      const number = Number(comment[3]);
      target.comments.push({ number, body: text });
      const full = `${target.owner}/${target.name}`;
      return reply(201, {
        id: 5000 + target.comments.length,
        html_url: `${htmlBase}/${full}/issues/${number}#issuecomment-${5000 + target.comments.length}`,
        body: text,
        user: { login: 'agentjobs-bot' },
      });
    }

    const labels = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/labels(?:\/([^/]+))?$/.exec(
      request.url.pathname,
    );
    if (labels) return labelReply(request, labels, reply, error);

    const permission = /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/.exec(
      request.url.pathname,
    );
    if (permission && method === 'GET') {
      const target = repositories.get(`${permission[1]}/${permission[2]}`.toLowerCase());
      if (!target) return error(404, 'Not Found');
      if (!target.push) return error(403, 'Must have push access to view collaborator permission.');
      const login = decodeURIComponent(permission[3] ?? '');
      const role =
        login.toLowerCase() === target.owner.toLowerCase()
          ? 'admin'
          : target.collaborators[login.toLowerCase()];
      return reply(200, {
        permission: role ? BASE_ROLE[role] : 'none',
        role_name: role ?? 'none',
        user: { login, id: 4000 + login.length, type: 'User', site_admin: false },
      });
    }

    const match = /^\/repos\/([^/]+)\/([^/]+)(\/pulls(?:\/(\d+))?)?$/.exec(request.url.pathname);
    const repository = match ? repositories.get(`${match[1]}/${match[2]}`.toLowerCase()) : undefined;
    if (!match || !repository) return error(404, 'Not Found');
    const [, , , pulls, number] = match;

    if (!pulls && method === 'GET') {
      return reply(200, {
        id: 1,
        name: repository.name,
        full_name: `${repository.owner}/${repository.name}`,
        owner: { login: repository.owner, type: 'Organization' },
        private: true,
        html_url: `${htmlBase}/${repository.owner}/${repository.name}`,
        archived: repository.archived,
        default_branch: 'main',
        permissions: { admin: false, maintain: false, push: repository.push, triage: true, pull: true },
      });
    }
    if (pulls && !number && method === 'GET') {
      const state = request.url.searchParams.get('state') ?? 'open';
      const head = request.url.searchParams.get('head');
      const base = request.url.searchParams.get('base');
      const found = repository.pulls.filter(
        (pull) =>
          (state === 'all' || pull.state === state) &&
          (!head || `${repository.owner}:${pull.head}` === head) &&
          (!base || pull.base === base),
      );
      return reply(
        200,
        found.map((pull) => pullJson(repository, pull)),
      );
    }
    if (number && method === 'GET') {
      const pull = repository.pulls.find((candidate) => candidate.number === Number(number));
      return pull ? reply(200, pullJson(repository, pull)) : error(404, 'Not Found');
    }
    if (method === 'GET' || !pulls) return error(404, 'Not Found');
    if (repository.archived) return error(403, 'Repository was archived so is read-only.');
    if (!repository.push) return error(403, 'Resource not accessible by personal access token');
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    const now = new Date().toISOString();

    if (!number && method === 'POST') {
      const { title, head, base } = input as { title?: string; head?: string; base?: string };
      if (!title || !head || !base)
        return error(422, 'Validation Failed', {
          errors: [{ resource: 'PullRequest', code: 'missing_field' }],
        });
      const branch = head.includes(':') ? (head.split(':')[1] ?? head) : head;
      if (options.hasBranch && !options.hasBranch(repository.owner, repository.name, branch))
        return error(422, 'Validation Failed', {
          errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
        });
      if (
        repository.pulls.some((pull) => pull.state === 'open' && pull.head === branch && pull.base === base)
      )
        return error(422, 'Validation Failed', {
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for ${repository.owner}:${branch}.`,
            },
          ],
        });
      const pull: DoublePull = {
        number: repository.pulls.length + 1,
        title,
        body: typeof input.body === 'string' ? input.body : null,
        head: branch,
        base,
        draft: input.draft === true,
        state: 'open',
        created_at: now,
        updated_at: now,
      };
      repository.pulls.push(pull);
      return reply(201, pullJson(repository, pull), {
        location: `${url}/repos/${repository.owner}/${repository.name}/pulls/${pull.number}`,
      });
    }
    if (number && method === 'PATCH') {
      const pull = repository.pulls.find((candidate) => candidate.number === Number(number));
      if (!pull) return error(404, 'Not Found');
      if (typeof input.title === 'string') pull.title = input.title;
      if (typeof input.body === 'string') pull.body = input.body;
      if (input.state === 'open' || input.state === 'closed') pull.state = input.state;
      pull.updated_at = now;
      return reply(200, pullJson(repository, pull));
    }
    return error(404, 'Not Found');
  };

  /** The issue labels API on a pull request's number (see the file's comment). */
  const labelReply = (
    request: DoubleRequest,
    [, owner, name, number, label]: RegExpExecArray,
    reply: (status: number, data: unknown) => DoubleReply,
    error: (status: number, message: string, extra?: Record<string, unknown>) => DoubleReply,
  ): DoubleReply => {
    const target = repositories.get(`${owner}/${name}`.toLowerCase());
    const pull = target?.pulls.find((candidate) => candidate.number === Number(number));
    if (!target || !pull) return error(404, 'Not Found');
    if (target.refuseLabels || !target.push)
      return error(403, 'Resource not accessible by personal access token');
    const labelJson = (each: string) => ({
      id: 7000 + each.length,
      name: each,
      color: 'ededed',
      default: false,
    });
    pull.labels ??= [];
    if (request.method === 'POST' && label === undefined) {
      const input = JSON.parse(request.body || '{}') as { labels?: unknown };
      const names = input.labels;
      if (!Array.isArray(names) || !names.every((each) => typeof each === 'string'))
        return error(422, "Invalid request.\n\nFor 'properties/labels', nil is not an array.");
      for (const each of names) if (!pull.labels.includes(each)) pull.labels.push(each);
      return reply(200, pull.labels.map(labelJson));
    }
    if (request.method === 'DELETE' && label !== undefined) {
      const named = decodeURIComponent(label);
      if (!pull.labels.includes(named)) return error(404, 'Label does not exist');
      pull.labels = pull.labels.filter((each) => each !== named);
      return reply(200, pull.labels.map(labelJson));
    }
    return error(404, 'Not Found');
  };

  const double = await startDoubleServer<GithubFault>(handle);
  url = double.url;
  return {
    ...double,
    ...hookSender('github', htmlBase),
    repository: (owner, name, settings = {}) => doubledRepository(repositories, owner, name, settings),
  };
}

/** An App JWT: RS256 over `header.payload`, signed with the App's key, issued by the App. */
function validJwt(authorization: string, app: { appId: string; publicKeyPem: string }): boolean {
  const jwt = /^bearer\s+(\S+)$/i.exec(authorization)?.[1];
  const [header, payload, signature] = jwt?.split('.') ?? [];
  if (!header || !payload || !signature) return false;
  const signed = verify(
    'RSA-SHA256',
    Buffer.from(`${header}.${payload}`),
    createPublicKey(app.publicKeyPem),
    Buffer.from(signature, 'base64url'),
  );
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    iss?: unknown;
    exp?: number;
  };
  return signed && String(claims.iss) === app.appId && (claims.exp ?? 0) * 1000 > Date.now();
}
