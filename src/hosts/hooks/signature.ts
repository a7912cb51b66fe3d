/**
 * Each code host's way of proving a webhook came from it (DESIGN section 3, the code host's
 * webhook), checked in constant time against the project's hook secret:
 * - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>` (@octokit/webhooks-methods);
 * - GitLab: `X-Gitlab-Token: <the secret itself>` (GitLab signs nothing);
 * - Gitea and Forgejo: `X-Gitea-Signature: <hex HMAC-SHA256 of the raw body>` (Forgejo also sends
 *   `X-Forgejo-Signature`, the same value).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import type { HookHost } from '../../domain/hook-secret.js';

/** A header's one value: a repeated header is not a signature we take. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Equal strings, in time that does not depend on where they differ (hashed first, so on length neither). */
function sameText(a: string, b: string): boolean {
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
    // The library signs text: a body that is not UTF-8 decodes with replacement characters and so
    // cannot match a signature over its real bytes; it is refused either way.
    return verifyGithub(secret, body.toString('utf8'), signature.trim().toLowerCase());
  }
  const signature = headerOf(headers, 'x-gitea-signature') ?? headerOf(headers, 'x-forgejo-signature');
  if (!signature) return false;
  const expected = createHmac('sha256', secret).update(body).digest('hex');
  return sameText(signature.trim().toLowerCase(), expected);
}
