/**
 * Blanks what looks like a credential: our API keys (`ajs_…`), model-provider keys (`sk-…`,
 * `sk-ant-…`, `sk-proj-…`) and bearer tokens. Used on every text that may echo input or a
 * provider's answer (logged URLs, error messages), as a second line of defence: secrets should
 * never reach such text at all.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/ajs_[0-9A-Za-z]{8,}/g, 'ajs_[redacted]')
    .replace(/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, '[redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, '$1[redacted]');
}

/** Shortest configured secret that is blanked wherever it occurs; shorter ones would blank ordinary words. */
const MIN_SECRET_CHARS = 8;

/** Blanks secrets in a text. */
export type Redactor = (text: string) => string;

/**
 * `redactSecrets`, and also every occurrence of the given secret values (the server's own keys and
 * passwords, whatever their shape). Empty and very short values are ignored.
 */
export function createRedactor(secrets: readonly (string | null | undefined)[]): Redactor {
  const values = [...new Set(secrets)]
    .filter((value): value is string => typeof value === 'string' && value.length >= MIN_SECRET_CHARS)
    // Longest first, so a secret that contains another is blanked whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of values) out = out.split(value).join('[redacted]');
    return redactSecrets(out);
  };
}

/** A copy of `value` with `redact` applied to every string in it, object keys included. */
export function redactValue<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact)) as T;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [redact(key), redactValue(item, redact)]),
  ) as T;
}
