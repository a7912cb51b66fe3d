/**
 * Each code host's way of proving a webhook came from it (docs/api.md#code-host-webhooks
 * webhook), checked in constant time against the project's hook secret:
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`;
 * - GitLab: `X-Gitlab-Token: <the secret itself>` (GitLab signs nothing);
 * - Gitea and Forgejo: `X-Gitea-Signature: <hex HMAC-SHA256 of the raw body>` (Forgejo also sends
 *   `X-Forgejo-Signature`, the same value).
 * The HMACs are over the body's bytes as sent, whatever they are: a body that is not UTF-8 JSON but
 * carries the right signature came from the host (or one who has the secret), and is answered 400
 * for what it is, never 401 as if the secret were wrong.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { HookHost } from '../../domain/hook-secret.js';

/** A header's one value: a repeated header is not a signature we take. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Equal strings, in time that does not depend on where they differ (hashed first, so on length neither). */
export function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Whether the request carries `host`'s proof of `secret` over `body`, byte for byte. */
export async function verifyHookSignature(
  host: HookHost,
  headers: IncomingHttpHeaders,
  body: Buffer,
  secret: string,
): Promise<boolean> {
  if (host === 'gitlab') {
    const token = headerOf(headers, 'x-gitlab-token');
    return token !== undefined && sameText(token, secret);
  }
  if (host === 'github') {
    const signature = headerOf(headers, 'x-hub-signature-256');
    if (!signature || body.length === 0) return false;
    // Not @octokit/webhooks-methods' verify: it signs the body decoded as UTF-8 text, so a body that
    // is not UTF-8 could never match its real bytes' signature.
    return sameText(signature.trim().toLowerCase(), `sha256=${hmacOf(secret, body)}`);
  }
  const signature = headerOf(headers, 'x-gitea-signature') ?? headerOf(headers, 'x-forgejo-signature');
  if (!signature) return false;
  return sameText(signature.trim().toLowerCase(), hmacOf(secret, body));
}

/** The hex HMAC-SHA256 of the body's bytes under the secret. */
export const hmacOf = (secret: string, body: Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');
