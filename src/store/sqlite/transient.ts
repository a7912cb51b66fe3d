/**
 * SQLite is a file, not a server: it is never "away". What passes is another connection's hold on
 * it (another process writing, a checkpoint), which outlasted the busy timeout: `SQLITE_BUSY`, and
 * `SQLITE_LOCKED` within one process. Both codes come with extended variants
 * (`SQLITE_BUSY_SNAPSHOT`), which mean the same here.
 */
export function isSqliteTransient(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)(_|$)/.test(code);
}
