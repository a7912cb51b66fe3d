/**
 * HTTP for the REST clients of the gitlab and gitea hosts: one request with retries, one JSON client
 * on it, and one error type that holds the host's answer and nothing of the request.
 *
 * Retries: 429 and 5xx (500, 502, 503, 504) and network failures, a bounded number of times. A
 * response's `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3) sets the wait; without one
 * the wait doubles from one second. A wait longer than `maxWaitSeconds` is not waited: the request
 * fails at once, retryable, so the job says so instead of holding a worker for an hour. Retrying a
 * create is safe here: a create that went through before its answer was lost is found again as
 * "already exists" and reused.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedactor } from '../domain/redact.js';

/** How hard a client tries before giving up; the defaults suit real hosts, tests shrink the waits. */
export interface HostRetryOptions {
  /** Retries of one request after a 429, a 5xx or a network failure. Default 3. */
  retries?: number;
  /** Longest `Retry-After` accepted, in seconds; a longer one fails the request (retryable). Default 120. */
  maxWaitSeconds?: number;
  /** Milliseconds per second of `Retry-After` and of backoff. Default 1000; tests pass a few. */
  baseMs?: number;
  /** One attempt's time limit, in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** What sends each attempt; the global fetch by default (the server's counts them, `counted-fetch.ts`). */
  fetch?: typeof fetch;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

/**
 * A host answered with an error status, or could not be reached (`status` null). `said` is the
 * host's own message from the response body; the request (and so the token) is not kept.
 */
export class HostHttpError extends Error {
  override name = 'HostHttpError';
  readonly status: number | null;
  readonly said: string;
  /** The wait the host asked for, in seconds, when it said so. */
  readonly retryAfter: number | null;
  constructor(status: number | null, said: string, retryAfter: number | null = null) {
    super(status === null ? `unreachable: ${said}` : `${status}${said ? `: ${said}` : ''}`);
    this.status = status;
    this.said = said;
    this.retryAfter = retryAfter;
  }
}

/** Seconds a `Retry-After` value asks for, or null when there is none or it cannot be read. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export interface SendOptions {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The job's signal: stops the request and any wait. */
  signal?: AbortSignal | undefined;
  /** Texts to blank out of anything the host says back (the token), as a second line of defence. */
  secrets: string[];
}

/**
 * Sends the request with the retries above. Returns the response when it is a success or a failure
 * not worth retrying (the caller reads it); throws `HostHttpError` when retries ran out.
 */
export async function sendWithRetry(
  url: URL,
  options: SendOptions,
  retry: HostRetryOptions = {},
): Promise<Response> {
  const retries = retry.retries ?? 3;
  const baseMs = retry.baseMs ?? 1000;
  const maxWaitSeconds = retry.maxWaitSeconds ?? 120;
  const send = retry.fetch ?? fetch;
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(retry.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await send(url, {
        method: options.method,
        headers: options.headers,
        ...(options.body === undefined ? {} : { body: options.body }),
        signal,
        // A redirect is answered as it is (a 3xx the caller reports): following one could carry the token elsewhere.
        redirect: 'manual',
      });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (attempt >= retries) throw new HostHttpError(null, networkReason(error));
      await sleep(2 ** attempt * baseMs, undefined, withSignal(options.signal));
      continue;
    }
    if (response.ok || !RETRYABLE.has(response.status)) return response;
    const asked = retryAfterSeconds(response.headers.get('retry-after'));
    if (attempt >= retries || (asked !== null && asked > maxWaitSeconds)) {
      throw await failureOf(response, options.secrets);
    }
    await response.body?.cancel();
    await sleep((asked ?? 2 ** attempt) * baseMs, undefined, withSignal(options.signal));
  }
}

/** One call of a host's REST API: method, path below the API's base, and a query or a JSON body. */
export type JsonApi = <T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options?: { query?: Record<string, string | number | boolean>; body?: unknown },
) => Promise<T>;

/**
 * A JSON client of the REST API at `apiBase` (`https://gitlab.example.com/api/v4`), sending
 * `headers` (the token's) with every request, with the retries above; a failure is a
 * `HostHttpError` in which `token` is blanked. `signal` stops its requests and their waits. The
 * gitea and gitlab hosts use a handful of endpoints each, which does not warrant an SDK of either API.
 */
export function createJsonApi(
  apiBase: string,
  auth: { headers: Record<string, string>; token: string },
  retry: HostRetryOptions = {},
  signal?: AbortSignal,
): JsonApi {
  return async <T>(method: string, path: string, options: Parameters<JsonApi>[2] = {}) => {
    const url = new URL(`${apiBase}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, String(value));
    const json = options.body !== undefined;
    const response = await sendWithRetry(
      url,
      {
        method,
        headers: {
          ...auth.headers,
          accept: 'application/json',
          'user-agent': 'agentjobs',
          ...(json ? { 'content-type': 'application/json' } : {}),
        },
        ...(json ? { body: JSON.stringify(options.body) } : {}),
        signal,
        secrets: [auth.token],
      },
      retry,
    );
    if (!response.ok) throw await failureOf(response, [auth.token]);
    const text = await response.text();
    return (text === '' ? null : JSON.parse(text)) as T;
  };
}

/** The HTTP status of a failed host request, or undefined for anything else. */
export function hostStatus(error: unknown): number | undefined {
  return error instanceof HostHttpError && error.status !== null ? error.status : undefined;
}

/** The host's own words about a failed request ('' when it said nothing). */
export function hostSaid(error: unknown): string {
  return error instanceof HostHttpError ? error.said : '';
}

/** The `HostHttpError` of a failed response, with the host's words. */
export async function failureOf(response: Response, secrets: string[]): Promise<HostHttpError> {
  const text = await response.text().catch(() => '');
  let said: string;
  try {
    said = messageOf(JSON.parse(text));
  } catch {
    said = text.trim();
  }
  said = createRedactor(secrets)(said);
  if (said.length > 500) said = `${said.slice(0, 499)}…`;
  return new HostHttpError(response.status, said, retryAfterSeconds(response.headers.get('retry-after')));
}

/**
 * The message of an error body. GitLab answers `{ message: string | string[] | { field: [..] } }`
 * or `{ error, error_description }`; Gitea `{ message, url }` or `{ message, errors: [..] }`.
 */
function messageOf(body: unknown): string {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null) return '';
  const { message, error, error_description: description, errors } = body as Record<string, unknown>;
  const parts = [flatten(message), flatten(error), flatten(description), flatten(errors)];
  return parts.filter(Boolean).join(': ');
}

function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(flatten).filter(Boolean).join('; ');
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .map(([key, item]) => `${key} ${flatten(item)}`)
      .join('; ');
  }
  return '';
}

/** Why fetch failed, from its cause (`ECONNREFUSED`, a TLS error…); never the URL. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if ((error as Error | null)?.name === 'TimeoutError') return 'timed out';
  return typeof cause?.message === 'string' ? cause.message : String((error as Error)?.message ?? error);
}

function withSignal(signal: AbortSignal | undefined) {
  return signal ? { signal } : {};
}
