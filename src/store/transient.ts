/**
 * Telling "the database is away for a moment" (a restart, a failover, a dropped connection) from
 * a real failure, and waiting such moments out where doing a thing twice is harmless.
 */

/** SQLSTATE codes and socket errors that mean "the database is not reachable right now". */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EPIPE',
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/**
 * Whether `error` says the database is away for now (restarting, unreachable, the connection
 * dropped) rather than that the request itself failed. SQLSTATE class 08 is "connection exception".
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (TRANSIENT_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  return (
    typeof message === 'string' &&
    /Connection terminated|not queryable|timeout exceeded when trying to connect/.test(message)
  );
}

/** An error of a connection that is gone, with the SQLSTATE `connection_does_not_exist`. */
class ConnectionLostError extends Error {
  override name = 'ConnectionLostError';
  readonly code = '08003';
  /** The client knew the connection was dead and sent nothing: the statement never reached the server. */
  readonly unsent: boolean;
  constructor(cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`The database connection was lost: ${message}`, { cause });
    this.unsent = /not queryable/.test(message);
  }
}

/** Whether a statement failed without being sent, so that running it again cannot do it twice. */
export const wasUnsent = (error: unknown): boolean => error instanceof ConnectionLostError && error.unsent;

/** Gives a transient error a code when it has none ("Connection terminated unexpectedly"). */
export function normalized(error: unknown): unknown {
  if (!isTransientDatabaseError(error)) return error;
  return typeof (error as { code?: unknown }).code === 'string' ? error : new ConnectionLostError(error);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn`, and again with backoff while it fails on a transient error, for up to `withinMs`;
 * then the last error stands. Only for work that may be done twice (a read, a lease renewal).
 */
export async function retryTransient<T>(fn: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransientDatabaseError(error) || Date.now() + delay > deadline) throw error;
      await sleep(delay);
    }
  }
}
