/**
 * What PostgreSQL and its client say when the database is away for a moment (a restart, a
 * failover, a dropped connection) or when a transaction lost a race it may simply run again.
 */

/** SQLSTATE codes and socket errors that mean "try again shortly". */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EPIPE',
  '40001', // serialization_failure: the transaction was rolled back; running it again is the cure
  '40P01', // deadlock_detected: likewise, for the transaction chosen as the victim
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/**
 * Whether `error` says the database is away for now, or that the transaction was rolled back by a
 * race (serialization, deadlock), rather than that the request itself failed. SQLSTATE class 08 is
 * "connection exception"; pg reports a connection it lost by message alone.
 */
export function isPostgresTransient(error: unknown): boolean {
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

/** Gives a lost connection's error a code when it has none ("Connection terminated unexpectedly"). */
export function normalized(error: unknown): unknown {
  if (!isPostgresTransient(error)) return error;
  return typeof (error as { code?: unknown }).code === 'string' ? error : new ConnectionLostError(error);
}
