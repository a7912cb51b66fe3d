/**
 * Standard Webhooks signing, with the `standardwebhooks` package: the same code a receiver uses to
 * verify. While a rotated secret overlaps, each secret signs and the header carries both
 * signatures, separated by a space, as the specification allows.
 */
import { Webhook } from 'standardwebhooks';

/** The `webhook-*` headers for one attempt of an event. */
export function signatureHeaders(
  eventId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
