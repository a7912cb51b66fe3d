/**
 * The gitbeaker client of the GitLab host, and how GitLab's refusals become `CodeHostError`s.
 *
 * gitbeaker's own request handler (`@gitbeaker/rest`) retries only 429 and 502, ten times within
 * about a quarter of a second, ignoring `Retry-After`, and its errors keep the request, headers and
 * token included, as their `cause`. So the client gets our handler instead, through gitbeaker's
 * `requesterFn` option: the same request, with the retries of `./http.ts` (429, 5xx and network
 * failures, honouring `Retry-After`) and errors that hold only GitLab's answer. gitbeaker's
 * client-side rate limiter is left out: a job makes a handful of requests, and GitLab's own 429s
 * are honoured.
 */
import { createRequesterFn, type RequestOptions, type ResponseBodyTypes } from '@gitbeaker/requester-utils';
import { Gitlab } from '@gitbeaker/rest';
import { failureOf, HostHttpError, type HostRetryOptions, sendWithRetry } from './http.js';
import { CodeHostError } from './types.js';

export type GitlabClient = InstanceType<typeof Gitlab<false>>;

/**
 * A client of the GitLab instance at `host` (`https://gitlab.com`, or a self-managed base URL) with
 * `token` (a personal, project or group access token, sent as `PRIVATE-TOKEN`). `signal` stops its
 * requests and their waits: a client lives for one publishing step.
 */
export function createGitlabClient(
  host: string,
  token: string,
  retry: HostRetryOptions = {},
  signal?: AbortSignal,
): GitlabClient {
  const requesterFn = createRequesterFn(
    async (_service, options) => options,
    async (endpoint, raw) => {
      const options = raw as RequestOptions;
      const url = new URL(endpoint, `${options.prefixUrl ?? ''}/`.replace(/\/+$/, '/'));
      if (options.searchParams) url.search = options.searchParams;
      const response = await sendWithRetry(
        url,
        {
          method: options.method ?? 'GET',
          headers: options.headers ?? {},
          ...(typeof options.body === 'string' ? { body: options.body } : {}),
          signal,
          secrets: [token],
        },
        retry,
      );
      if (!response.ok) throw await failureOf(response, [token]);
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      const body: ResponseBodyTypes =
        response.status === 204
          ? null
          : type === 'application/json'
            ? (((await response.json()) as ResponseBodyTypes) ?? {})
            : await response.text();
      return { body, headers: Object.fromEntries(response.headers.entries()), status: response.status };
    },
  );
  // queryTimeout null: each attempt has its own time limit in `sendWithRetry`.
  return new Gitlab({ host, token, requesterFn, queryTimeout: null });
}

/** GitLab's HTTP status of a failed request, or undefined for anything else. */
export function gitlabStatus(error: unknown): number | undefined {
  return error instanceof HostHttpError && error.status !== null ? error.status : undefined;
}

/** GitLab's own words about a failed request ('' when it said nothing). */
export function gitlabMessage(error: unknown): string {
  return error instanceof HostHttpError ? error.said : '';
}

/** The roles of GitLab's `access_level` numbers (Members API). */
export const GITLAB_ROLES: Record<number, string> = {
  0: 'No access',
  5: 'Minimal access',
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

/**
 * Turns a failed GitLab request into a job error a user can act on. `what` says what was being done
 * ("opening the merge request"), `project` names the project's path. The message holds GitLab's
 * words and ours, never the request.
 */
export function explainGitlabError(error: unknown, what: string, project: string): unknown {
  if (error instanceof CodeHostError) return error;
  if (!(error instanceof HostHttpError)) return error;
  const quoted = error.said ? ` (GitLab said: ${error.said})` : '';
  const status = error.status;
  if (status === null) {
    return new CodeHostError(`GitLab could not be reached while ${what}: ${error.said}.`, {
      isRetryable: true,
    });
  }
  if (status === 401) {
    return new CodeHostError(
      `GitLab refused the project's token while ${what} (401): it is invalid, expired or revoked. Store a new one with \`agentjobs project token ID\`.${quoted}`,
    );
  }
  if (status === 403) {
    return new CodeHostError(
      `GitLab denied ${what} on ${project} (403): the token needs the api scope and at least the Developer role on the project (a project access token: Developer), and the project must not be archived.${quoted}`,
    );
  }
  if (status === 404) {
    return new CodeHostError(
      `GitLab found no project ${project} while ${what} (404): it does not exist, or the token cannot see it (its user must be a member, and the token needs the api scope).${quoted}`,
    );
  }
  if (status === 429 || status >= 500) {
    const limited = status === 429 ? "GitLab's rate limit stopped" : `GitLab failed (${status}) while`;
    return new CodeHostError(`${limited} ${what} after retries; the job can be retried later.${quoted}`, {
      isRetryable: true,
    });
  }
  return new CodeHostError(`GitLab refused ${what} on ${project} (${status}).${quoted}`);
}
