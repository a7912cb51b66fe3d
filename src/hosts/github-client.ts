/**
 * The Octokit client of the GitHub host, and how GitHub's refusals become `CodeHostError`s.
 *
 * Retries follow GitHub's "Rate limits for the REST API" guidance: the throttling plugin waits out
 * primary and secondary rate limits (403/429 with `retry-after`, or `x-ratelimit-remaining: 0` until
 * `x-ratelimit-reset`) a bounded number of times; the retry plugin retries 5xx and network failures
 * with a growing backoff; a plain 429 (no rate-limit message, e.g. from a proxy in front of GitHub
 * Enterprise) is retried here after its `Retry-After`, which the retry plugin would ignore.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { CodeHostError } from './types.js';

/** How hard the client tries before giving up; the defaults suit GitHub, tests shrink the waits. */
export interface GithubRetryOptions {
  /** Retries of one request after a 5xx, a network failure or a 429. Default 3. */
  retries?: number;
  /** Rate-limit waits (primary or secondary) of one request. Default 2. */
  rateLimitRetries?: number;
  /** Longest rate-limit wait accepted, in seconds; a longer one fails the request (retryable). Default 120. */
  maxWaitSeconds?: number;
  /** Milliseconds per second of `Retry-After` and of backoff. Default 1000; tests pass a few. */
  baseMs?: number;
  /**
   * GitHub asks for about a second between content-creating requests, and the throttling plugin
   * paces them (3 s for pull requests). Default true; tests turn it off to stay quick.
   */
  pacing?: boolean;
  /** What sends each request; the global fetch by default (the server's counts them, `counted-fetch.ts`). */
  fetch?: typeof fetch;
}

type Plugin = (octokit: Pick<Octokit, 'hook'>) => void;

/** Retries a plain 429 after its `Retry-After`; rate-limit 429s are the throttling plugin's. */
function plainTooManyRequests(limits: Required<Omit<GithubRetryOptions, 'fetch'>>): Plugin {
  return (octokit) => {
    octokit.hook.wrap('request', async (request, options) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await request(options);
        } catch (error) {
          const after = plainRetryAfter(error);
          if (after === null || attempt >= limits.retries || after > limits.maxWaitSeconds) throw error;
          const signal = (options.request as { signal?: AbortSignal } | undefined)?.signal;
          await sleep(after * limits.baseMs, undefined, signal ? { signal } : {});
        }
      }
    });
  };
}

function plainRetryAfter(error: unknown): number | null {
  const failure = error as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, unknown> };
  };
  if (failure.status !== 429 || /\bsecondary rate\b/i.test(failure.message ?? '')) return null;
  const headers = failure.response?.headers ?? {};
  if (headers['x-ratelimit-remaining'] === '0') return null;
  const after = Number(headers['retry-after']);
  return Number.isFinite(after) && after >= 0 ? after : null;
}

/** A Bottleneck group that schedules at once: no pacing (see `GithubRetryOptions.pacing`). */
const unpaced = { key: () => ({ schedule: (_options: unknown, task: () => unknown) => task() }) };

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A client for one API base and one token (null: unauthenticated), with the retry behaviour above. */
export function createGithubClient(
  baseUrl: string,
  token: string | null,
  retryOptions: GithubRetryOptions = {},
): Octokit {
  const limits: Required<Omit<GithubRetryOptions, 'fetch'>> = {
    retries: retryOptions.retries ?? 3,
    rateLimitRetries: retryOptions.rateLimitRetries ?? 2,
    maxWaitSeconds: retryOptions.maxWaitSeconds ?? 120,
    baseMs: retryOptions.baseMs ?? 1000,
    pacing: retryOptions.pacing ?? true,
  };
  const GithubOctokit = Octokit.plugin(plainTooManyRequests(limits), retry, throttling);
  const onLimit = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
    retryCount < limits.rateLimitRetries && retryAfter <= limits.maxWaitSeconds;
  return new GithubOctokit({
    ...(token === null ? {} : { auth: token }),
    baseUrl,
    userAgent: 'agentjobs',
    // Octokit would print to the console; what matters reaches the job as a CodeHostError.
    log: quiet,
    ...(retryOptions.fetch ? { request: { fetch: retryOptions.fetch } } : {}),
    retry: {
      retries: limits.retries,
      retryAfterBaseValue: limits.baseMs,
      // 429 is handled by the throttling plugin or `plainTooManyRequests`, which honour Retry-After.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
    throttle: {
      onRateLimit: onLimit,
      onSecondaryRateLimit: onLimit,
      retryAfterBaseValue: limits.baseMs,
      fallbackSecondaryRateRetryAfter: 60,
      ...(limits.pacing ? {} : { write: unpaced as never, notifications: unpaced as never }),
    },
  });
}

/** GitHub's HTTP status of a failed request, or undefined for anything else. */
export function githubStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && (error as { response?: unknown }).response ? status : undefined;
}

/** GitHub's own words: the `message` and any `errors[].message` of the response (never the request). */
export function githubMessage(error: unknown): string {
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  if (typeof data !== 'object' || data === null) return '';
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  const details = Array.isArray(errors)
    ? errors
        .map((item) => (item as { message?: unknown })?.message)
        .filter((text) => typeof text === 'string')
    : [];
  return [typeof message === 'string' ? message : '', ...details].filter(Boolean).join(': ');
}

/**
 * Turns a failed GitHub request into a job error a user can act on. `what` says what was being done
 * ("opening the pull request"), `repository` names `owner/repo`. The message holds GitHub's words
 * and ours, never the request (Octokit redacts the token there, but nothing of it is needed).
 */
export function explainGithubError(error: unknown, what: string, repository: string): unknown {
  if (error instanceof CodeHostError) return error;
  if ((error as Error | null)?.name === 'AbortError') return error;
  const status = githubStatus(error);
  const said = githubMessage(error);
  const quoted = said ? ` (GitHub said: ${said})` : '';
  if (status === undefined) {
    const network = (error as { status?: unknown } | null)?.status === 500;
    if (!network) return error;
    return new CodeHostError(`GitHub could not be reached while ${what}: ${(error as Error).message}.`, {
      isRetryable: true,
    });
  }
  if (/archived/i.test(said) && (status === 403 || status === 422)) {
    return new CodeHostError(
      `The repository ${repository} is archived, so it is read-only: unarchive it on GitHub, or point the project at another repository.${quoted}`,
    );
  }
  if (status === 401) {
    return new CodeHostError(
      `GitHub refused the project's token while ${what} (401): it is invalid, expired or revoked. Store a new one with \`agentjobs project token ID\`.${quoted}`,
    );
  }
  if ((status === 403 || status === 429) && /rate limit/i.test(said)) {
    return new CodeHostError(`GitHub's rate limit stopped ${what}; the job can be retried later.${quoted}`, {
      isRetryable: true,
    });
  }
  if (status === 403) {
    return new CodeHostError(
      `GitHub denied ${what} on ${repository} (403): the token lacks the permission (a fine-grained token needs Contents and Pull requests: read and write; a classic one the repo scope), or a rule protects the base branch.${quoted}`,
    );
  }
  if (status === 404) {
    return new CodeHostError(
      `GitHub found no repository ${repository} while ${what} (404): it does not exist, or the token cannot see it (a fine-grained token must list the repository).${quoted}`,
    );
  }
  if (status === 422) return new CodeHostError(`GitHub refused ${what} on ${repository} (422)${quoted}.`);
  if (status >= 500 || status === 429) {
    return new CodeHostError(
      `GitHub failed while ${what} (${status}) after retries; try again later.${quoted}`,
      {
        isRetryable: true,
      },
    );
  }
  return new CodeHostError(`GitHub answered ${status} while ${what} on ${repository}.${quoted}`);
}
