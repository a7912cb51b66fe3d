import type { ModelMessage } from 'ai';
import { JobFailure, type JobFailureCode } from '../domain/errors.js';
import type { RunUsage } from './usage.js';

/** Why an agent run ended without a result. Each one becomes the job's `error.code`. */
export type AgentErrorCode = Extract<
  JobFailureCode,
  | 'model_unavailable'
  | 'model_error'
  | 'step_limit'
  | 'time_limit'
  | 'token_limit'
  | 'files_limit'
  | 'budget_exceeded'
  | 'aborted'
>;

/** What a run had done when it ended with an error, so the worker can still record it. */
export interface AgentPartial {
  /** The conversation up to the last finished step (history + this run), for a later follow-up. */
  messages: ModelMessage[];
  usage: RunUsage;
  /** Paths written, moved or deleted so far (`workspace.changedPaths()`). */
  filesChanged: string[];
}

/**
 * A run that could not finish. `message` is meant for the job's `error.message`: it never holds a
 * provider key. `isRetryable` is true only when trying the same run again may succeed (a provider
 * that answered 429 or 5xx even after the SDK's own retries); limits and aborts are final.
 */
export class AgentError extends JobFailure<AgentErrorCode> {
  override name = 'AgentError';
  readonly isRetryable: boolean;
  /** Set by `runAgent` when the run got as far as calling the model. */
  partial: AgentPartial | null = null;

  constructor(
    code: AgentErrorCode,
    message: string,
    options: { isRetryable?: boolean; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.isRetryable = options.isRetryable ?? false;
  }
}

/** A refused tool call; its message is written for the model, which reads it as the tool's error. */
export class ToolError extends Error {
  override name = 'ToolError';
}
