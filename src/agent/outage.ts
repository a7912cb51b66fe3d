/**
 * Waiting out a model outage (see loop.ts): which failures count as one (the SDK's verdict,
 * `isRetryable`: 429, 5xx, a network error, a stream that broke off), and the waits between tries:
 * the provider's `Retry-After` when it sent one, else doubling, never past the bound counted from
 * the first call that failed.
 */
import { AISDKError } from 'ai';
import { AgentError } from './errors.js';
import { modelError } from './report.js';

/** First and longest wait between tries during an outage; the waits double in between. */
const OUTAGE_FIRST_DELAY_MS = 1000;
const OUTAGE_MAX_DELAY_MS = 60_000;

/** The provider failure that ended a round, when trying again later may succeed; else null. */
export function outageOf(caught: unknown): AgentError | null {
  const error =
    caught instanceof AgentError ? caught : AISDKError.isInstance(caught) ? modelError(caught) : null;
  return error?.code === 'model_error' && error.isRetryable ? error : null;
}

/** The waits of one outage: doubling, and no more in all than `boundMs` since it began. */
export function outageWait(boundMs: number) {
  let since: number | null = null;
  let tries = 0;
  return {
    /**
     * Milliseconds to wait before the next try (the provider's `Retry-After` when it sent one), or
     * null when the outage has lasted too long; `failingSince` is when the failed call began.
     */
    next(failingSince: number, retryAfter: number | null): number | null {
      since ??= failingSince;
      const left = since + boundMs - Date.now();
      if (left <= 0) return null;
      const backoff = retryAfter ?? OUTAGE_FIRST_DELAY_MS * 2 ** tries;
      const delay = Math.min(backoff, OUTAGE_MAX_DELAY_MS, left);
      tries += 1;
      return delay;
    },
    /** The error to end the run with once the outage has lasted too long. */
    giveUp(error: AgentError): AgentError {
      const seconds = since === null ? 0 : Math.ceil((Date.now() - since) / 1000);
      const waited = seconds > 0 ? ` The model stayed unavailable for ${seconds} s.` : '';
      return new AgentError('model_error', `${error.message}${waited}`, { isRetryable: true, cause: error });
    },
    /** A step went through: the outage, if any, is over. */
    reset() {
      since = null;
      tries = 0;
    },
  };
}
