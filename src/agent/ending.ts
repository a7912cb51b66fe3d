/**
 * How a run ends when it does not finish: which of the possible causes it was (the caller's abort,
 * a failing callback, a limit, the model), and the message each limit gives the user.
 */
import { AISDKError } from 'ai';
import { AgentError, type AgentErrorCode } from './errors.js';
import { modelError } from './report.js';

/** The limits a run is held to (loop.ts `AgentLimits`), as far as their messages need them. */
interface Limits {
  maxSteps: number;
  maxWallMs: number;
  maxTokens: number;
  maxFilesChanged: number;
  maxCostUsd?: number | null;
}

/** `promise`, or a rejection as soon as `signal` aborts, whatever the provider does with the signal. */
export async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // The call keeps running in the background after an abort; its late rejection is expected.
  promise.catch(() => {});
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Which of the possible causes ended the run; the caller's abort wins over everything. */
export function classify(
  caught: unknown,
  callerSignal: AbortSignal,
  internalSignal: AbortSignal,
  callbackError: { error: unknown } | null,
  limits: Limits,
): unknown {
  if (callerSignal.aborted) return new AgentError('aborted', 'The run was stopped.');
  if (callbackError) return callbackError.error;
  if (internalSignal.aborted && internalSignal.reason instanceof AgentError)
    return limitError(internalSignal.reason.code, limits);
  if (caught instanceof AgentError) return caught;
  // The SDK's errors (the provider's answer, a network failure, a malformed response) are the
  // model's; anything else is a fault of ours or of git and is not dressed up as one.
  return AISDKError.isInstance(caught) ? modelError(caught) : caught;
}

export function limitError(
  code: AgentErrorCode,
  limits: Limits,
  usage?: { costUsd: number | null },
): AgentError {
  switch (code) {
    case 'budget_exceeded':
      return new AgentError(
        code,
        `The run reached its cost limit of $${limits.maxCostUsd} (it spent $${(usage?.costUsd ?? 0).toFixed(4)}).`,
      );
    case 'step_limit':
      return new AgentError(code, `The agent used its ${limits.maxSteps} steps without finishing.`);
    case 'token_limit':
      return new AgentError(
        code,
        `The agent used more than its ${limits.maxTokens} tokens without finishing.`,
      );
    case 'time_limit':
      return new AgentError(
        code,
        `The agent did not finish within ${Math.round(limits.maxWallMs / 1000)} s.`,
      );
    case 'files_limit':
      return new AgentError(code, `The agent tried to change more than ${limits.maxFilesChanged} files.`);
    default:
      return new AgentError(code, 'The run was stopped.');
  }
}
