/**
 * The client of the GitLab host: GitLab's REST API (v4) over Node's fetch (`createJsonApi`, shared
 * with the Gitea host), with the retries of `./http.ts` (429, 5xx and network failures, honouring
 * `Retry-After`) and errors that hold only GitLab's answer; and how GitLab's refusals become
 * `CodeHostError`s. The host uses nine endpoints: an SDK of the whole API (gitbeaker, 2.3 MB
 * installed) gave no types for their answers, retried too little and kept the token in its errors.
 */
import {
  createJsonApi,
  HostHttpError,
  type HostRetryOptions,
  hostSaid,
  hostStatus,
  type JsonApi,
} from './http.js';
import { CodeHostError } from './types.js';

/** One call: method, path below `/api/v4`, and a query or a JSON body (GitLab's snake_case names). */
export type GitlabClient = JsonApi;

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
  return createJsonApi(`${host}/api/v4`, { headers: { 'private-token': token }, token }, retry, signal);
}

/** GitLab's HTTP status of a failed request, or undefined for anything else. */
export const gitlabStatus = hostStatus;
/** GitLab's own words about a failed request ('' when it said nothing). */
export const gitlabMessage = hostSaid;

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
