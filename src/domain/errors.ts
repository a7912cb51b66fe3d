/**
 * Domain errors. Code anywhere in the service throws these; they carry data (how long to wait,
 * where a limit stands), never HTTP. Only `http/errors.ts` turns them into responses (status and
 * headers), and the worker records them on the job.
 */

const SERVICE_ERROR = Symbol.for('agentjobs.ServiceError');

/**
 * The one base of the service's own errors: each has a stable `code` that callers switch on (never
 * the message), and says whether it is `expected` (a user's mistake or an outcome to plan for,
 * logged quietly) or a fault. `isInstance` recognises one across two copies of this module, where
 * `instanceof` would not.
 */
export abstract class ServiceError<Code extends string = string> extends Error {
  readonly [SERVICE_ERROR] = true;
  abstract readonly code: Code;

  get expected(): boolean {
    return true;
  }

  static isInstance(error: unknown): error is ServiceError {
    return typeof error === 'object' && error !== null && SERVICE_ERROR in error;
  }
}

/**
 * Why a job failed: its `error.code`, an enum in the API's document, so a client and the dashboard
 * can act on it. A code no longer made (a job stored by an older version) reads as
 * `internal_error`.
 */
export const JOB_FAILURE_CODES = [
  'model_unavailable',
  'model_error',
  'step_limit',
  'time_limit',
  'token_limit',
  'files_limit',
  'budget_exceeded',
  'aborted',
  'checks_failed',
  'setup_failed',
  'setup_needs_review',
  'code_host_error',
  'context_repository_unavailable',
  'repository_error',
  'worker_lost',
  'internal_error',
] as const;
export type JobFailureCode = (typeof JOB_FAILURE_CODES)[number];

export const isJobFailureCode = (code: string): code is JobFailureCode =>
  (JOB_FAILURE_CODES as readonly string[]).includes(code);

/** An error that fails the job it happens in, with the code the job's `error` gets. */
export class JobFailure<Code extends JobFailureCode = JobFailureCode> extends ServiceError<Code> {
  override name = 'JobFailure';
  readonly code: Code;
  constructor(code: Code, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
  }

  override get expected(): boolean {
    return this.code !== 'internal_error';
  }
}

/** Every error code the API can answer with. The HTTP status for each lives in `http/errors.ts`. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'project_not_found'
  | 'job_not_found'
  | 'webhook_not_found'
  | 'delivery_not_found'
  | 'automation_not_found'
  | 'automation_disabled'
  | 'automation_limit_exceeded'
  | 'invalid_automation'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'job_archived'
  | 'invalid_transition'
  | 'idempotency_in_flight'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'idempotency_mismatch'
  | 'model_not_allowed'
  | 'webhook_url_not_allowed'
  | 'rate_limited'
  | 'too_many_active_jobs'
  | 'budget_exceeded'
  | 'headers_too_large'
  | 'unavailable'
  | 'internal_error';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** Where a caller stands against a limit it ran into. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Seconds until the limit frees up again. */
  resetSeconds: number;
}

/** What an `AppError` may carry besides its code and message. */
export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** How long the caller should wait before trying again. */
  retryAfterSeconds?: number;
  /** The limit the caller ran into. */
  limit?: LimitState;
  /** The methods the resource does take (for `method_not_allowed`). */
  allowedMethods?: string[];
  /** Why an `unavailable` is: the process is draining, or the database is away. */
  reason?: UnavailableReason;
  cause?: unknown;
}

/** Why a process cannot take work now (`unavailable`, and `/readyz`'s `reason`). */
export type UnavailableReason = 'draining' | 'database_unavailable' | 'migrations_pending';

export class AppError extends ServiceError<ErrorCode> {
  override name = 'AppError';

  override get expected(): boolean {
    return this.code !== 'internal_error';
  }

  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly limit: LimitState | undefined;
  readonly allowedMethods: string[] | undefined;
  readonly reason: UnavailableReason | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.limit = options.limit;
    this.allowedMethods = options.allowedMethods;
    this.reason = options.reason;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
