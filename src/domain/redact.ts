/**
 * Blanks what looks like a credential: our API keys, model-provider keys and bearer tokens. Used
 * on every text that may echo input or a provider's answer (logged URLs, error messages, agent
 * events), as a second line of defence: secrets should never reach such text at all.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/ajs_[0-9A-Za-z]{8,}/g, 'ajs_[redacted]')
    .replace(/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, '[redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, '$1[redacted]');
}
