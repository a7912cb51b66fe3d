import { parseRetryAfter } from './errors.js';

/** How a client retries a request that got 429 or 503 (or no answer). */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3; 0 turns retrying off. */
  retries?: number;
  /** The longest wait the client accepts between attempts; a longer Retry-After is returned as the error. Default 30 s. */
  maxDelayMs?: number;
  /** The first wait when the server did not say (doubled each time, with jitter). Default 500 ms. */
  baseDelayMs?: number;
}

export type FetchFunction = (input: Request) => Promise<Response>;

const RETRY_STATUSES = new Set([429, 503]);

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter: 0.5 to 1 times base·2^(attempt-1), capped. */
export function backoff(attempt: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * Wraps `fetch` so that a request answered 429 or 503, or not answered at all, is sent again after
 * the server's Retry-After (or a backoff when it gave none). Only for requests that are safe to
 * repeat: reads, and writes that carry an Idempotency-Key or are idempotent by contract. Each
 * attempt sends a clone, so the body can be sent again.
 */
export function retryingFetch(fetch: FetchFunction, options: RetryOptions = {}): FetchFunction {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        if (request.signal.aborted || attempt > retries) throw error;
        await sleep(backoff(attempt, baseDelayMs, maxDelayMs), request.signal);
        continue;
      }
      if (!RETRY_STATUSES.has(response.status) || attempt > retries) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const wait = retryAfter === null ? backoff(attempt, baseDelayMs, maxDelayMs) : retryAfter * 1000;
      // A budget that resets in an hour is the caller's to decide about, not a wait to hide.
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
