/**
 * A small client of the Gitea (and Forgejo) REST API, `/api/v1`, over Node's fetch
 * (`createJsonApi`, shared with the GitLab host): requests authenticate with `Authorization: token
 * …` and retry as `./http.ts` says; failures become `CodeHostError`s here.
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

/** One call: method, path below `/api/v1`, and a query or a JSON body. */
export type GiteaRequest = JsonApi;

/**
 * A client of the instance at `baseUrl` (`https://gitea.example.com`, with the sub-path it is
 * served under if any) with `token`. `signal` stops its requests and their waits.
 */
export function createGiteaClient(
  baseUrl: string,
  token: string,
  retry: HostRetryOptions = {},
  signal?: AbortSignal,
): GiteaRequest {
  return createJsonApi(
    `${baseUrl}/api/v1`,
    { headers: { authorization: `token ${token}` }, token },
    retry,
    signal,
  );
}

/** Gitea's HTTP status of a failed request, or undefined for anything else. */
export const giteaStatus = hostStatus;
/** Gitea's own words about a failed request ('' when it said nothing). */
export const giteaMessage = hostSaid;

/**
 * Turns a failed Gitea request into a job error a user can act on. `what` says what was being done
 * ("opening the pull request"), `repository` names `owner/repo`. The message holds Gitea's words and
 * ours, never the request.
 */
export function explainGiteaError(error: unknown, what: string, repository: string): unknown {
  if (error instanceof CodeHostError) return error;
  if (!(error instanceof HostHttpError)) return error;
  const quoted = error.said ? ` (Gitea said: ${error.said})` : '';
  const status = error.status;
  if (status === null) {
    return new CodeHostError(`Gitea could not be reached while ${what}: ${error.said}.`, {
      isRetryable: true,
    });
  }
  // Gitea answers 423 Locked for writes to an archived repository; older versions 403 saying so.
  if (status === 423 || (status === 403 && /archived/i.test(error.said))) {
    return new CodeHostError(
      `The repository ${repository} is archived, so it is read-only: unarchive it in its settings, or point the project at another repository.${quoted}`,
    );
  }
  if (status === 401) {
    return new CodeHostError(
      `Gitea refused the project's token while ${what} (401): it is invalid, expired or revoked. Store a new one with \`agentjobs project token ID\`.${quoted}`,
    );
  }
  if (status === 403) {
    return new CodeHostError(
      `Gitea denied ${what} on ${repository} (403): the token needs the write:repository scope and its user write access to the repository, or a branch protection rule refuses it.${quoted}`,
    );
  }
  if (status === 404) {
    return new CodeHostError(
      `Gitea found no repository ${repository} while ${what} (404): it does not exist, or the token cannot see it (it needs the read:repository scope, and its user access).${quoted}`,
    );
  }
  if (status === 429 || status >= 500) {
    const limited = status === 429 ? "Gitea's rate limit stopped" : `Gitea failed (${status}) while`;
    return new CodeHostError(`${limited} ${what} after retries; the job can be retried later.${quoted}`, {
      isRetryable: true,
    });
  }
  return new CodeHostError(`Gitea refused ${what} on ${repository} (${status}).${quoted}`);
}
