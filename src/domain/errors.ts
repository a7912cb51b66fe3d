/**
 * Domain errors. Code anywhere in the service throws these; only the API's error handler turns
 * them into HTTP responses (it maps `code` to a status), and the worker records them on the job.
 */

/** Every error code the API can answer with. The HTTP status for each lives in `http/errors.ts`. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'project_not_found'
  | 'job_not_found'
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
  | 'rate_limited'
  | 'too_many_active_jobs'
  | 'headers_too_large'
  | 'unavailable'
  | 'internal_error';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers the error implies (Allow, Retry-After, …). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
