/** A validation problem of a request, as the API names it. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An error answer of the API (or no answer at all). `code` is the API's stable snake_case code
 * (`job_not_found`, `rate_limited`, …); `status` is the HTTP status, 0 when the server could not
 * be reached or answered something that is not the API's.
 */
export class AgentJobsError extends Error {
  override name = 'AgentJobsError';
  readonly status: number;
  readonly code: string;
  /** The `X-Request-Id` of the answer: quote it when asking the server's operator. */
  readonly requestId: string | null;
  /** Seconds to wait before trying again (`Retry-After`), when the server said. */
  readonly retryAfter: number | null;
  readonly details: ErrorDetail[];

  constructor(
    message: string,
    options: {
      status: number;
      code: string;
      requestId?: string | null;
      retryAfter?: number | null;
      details?: ErrorDetail[];
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.requestId = options.requestId ?? null;
    this.retryAfter = options.retryAfter ?? null;
    this.details = options.details ?? [];
  }

  /** Whether the same request may succeed later: rate limits, a server that is unavailable or unreachable. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

/** Seconds in a `Retry-After` header (a number of seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The error for an answer that is not 2xx; `body` is the parsed body when it was JSON. */
export function errorFromResponse(response: Response, body: unknown): AgentJobsError {
  const payload = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    code?: unknown;
    requestId?: unknown;
    details?: unknown;
  };
  const ours = typeof payload.code === 'string' && typeof payload.error === 'string';
  const requestId =
    (typeof payload.requestId === 'string' ? payload.requestId : null) ??
    response.headers.get('x-request-id');
  return new AgentJobsError(
    ours ? (payload.error as string) : `HTTP ${response.status} ${response.statusText}`.trim(),
    {
      status: response.status,
      code: ours ? (payload.code as string) : 'http_error',
      requestId,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
      details: Array.isArray(payload.details) ? (payload.details as ErrorDetail[]) : [],
    },
  );
}

/** The error for a request that got no answer (connection refused, reset, DNS). */
export function unreachable(url: string, cause: unknown): AgentJobsError {
  const reason = cause instanceof Error ? String(cause.cause ?? cause.message) : String(cause);
  return new AgentJobsError(`Cannot reach ${url}: ${reason}`, { status: 0, code: 'unreachable', cause });
}

/** Reads an error answer's body: JSON when it is, else nothing. */
export async function readError(response: Response): Promise<AgentJobsError> {
  let body: unknown;
  try {
    const text = await response.text();
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return errorFromResponse(response, body);
}
