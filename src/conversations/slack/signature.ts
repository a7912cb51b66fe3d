/**
 * Slack's request signature (docs/slack.md#how-requests-are-checked): `X-Slack-Signature` is `v0=`
 * and the hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{raw body}` under the app's signing
 * secret. A timestamp more than 5 minutes from now is refused, so a recorded request cannot be
 * replayed later; the comparison takes the same time whatever the bytes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from now, either way. */
export const SLACK_REPLAY_WINDOW_SECONDS = 5 * 60;

export type SignatureVerdict = 'valid' | 'missing' | 'stale' | 'wrong';

/** Signs `body` as Slack does: what a test's double, or a proxy that re-signs, sends. */
export function slackSignature(secret: string, timestamp: string, body: Buffer | string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

export function verifySlackSignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  now = Date.now(),
): SignatureVerdict {
  const signature = headers['x-slack-signature'];
  const timestamp = headers['x-slack-request-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'missing';
  if (Math.abs(now / 1000 - Number(timestamp)) > SLACK_REPLAY_WINDOW_SECONDS) return 'stale';
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'wrong';
}
