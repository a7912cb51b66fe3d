/**
 * Linear's webhooks ("Webhooks", linear.app/developers/webhooks): each delivery carries
 * `Linear-Signature`, the hex HMAC-SHA256 of the raw body under the webhook's signing secret, and
 * the body's `webhookTimestamp` (milliseconds), which Linear says to refuse when it is more than a
 * minute from now (a captured delivery sent again later). `Linear-Delivery` names the delivery.
 * Read: `Issue` events, `create`, and `update` where the issue's labels changed (`updatedFrom`
 * holds the label ids it had). Knows no storage and no server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { LinearIssueEvent } from '../../domain/host-event.js';
import { linearTeamOf } from '../../domain/issue-trigger.js';
import { deliveryIdOf, readPayload } from './read.js';
import { headerOf, hmacOf, sameText } from './signature.js';

/** How far from now a delivery's `webhookTimestamp` may be. */
export const LINEAR_TIMESTAMP_TOLERANCE_MS = 60_000;

/** Whether the request carries Linear's signature of `body` under `secret`, byte for byte. */
export function verifyLinearSignature(headers: IncomingHttpHeaders, body: Buffer, secret: string): boolean {
  const signature = headerOf(headers, 'linear-signature');
  if (!signature || body.length === 0) return false;
  return sameText(signature.trim().toLowerCase(), hmacOf(secret, body));
}

/**
 * How far the delivery's `webhookTimestamp` is from `now`, in milliseconds; null when the body
 * has none (a delivery without one is refused as stale: it cannot be told from a replay).
 */
export function linearTimestampSkew(payload: unknown, now: Date): number | null {
  const stamp = (payload as { webhookTimestamp?: unknown } | null)?.webhookTimestamp;
  if (typeof stamp !== 'number' || !Number.isFinite(stamp)) return null;
  return Math.abs(now.getTime() - stamp);
}

const label = z.object({ id: z.string(), name: z.string() });
const issuePayload = z.object({
  action: z.string(),
  type: z.string(),
  url: z.string().nullish(),
  data: z.object({
    id: z.string().min(1),
    identifier: z.string(),
    title: z.string(),
    description: z.string().nullish(),
    url: z.string().nullish(),
    team: z.object({ key: z.string() }).nullish(),
    labels: z.array(label).nullish(),
    labelIds: z.array(z.string()).nullish(),
  }),
  updatedFrom: z
    .object({ labelIds: z.array(z.string()).nullish() })
    .passthrough()
    .nullish(),
});

/** One Linear delivery as read: the issue event, or why it is ignored. */
export type ReadLinearHook =
  | { kind: 'ignored'; deliveryId: string; eventName: string; reason: string }
  | { kind: 'event'; deliveryId: string; eventName: string; event: LinearIssueEvent };

/** Reads a (signed, fresh) delivery. Throws `HookPayloadError` when an Issue payload lacks a part this reads. */
export function readLinearHook(headers: IncomingHttpHeaders, body: Buffer, payload: unknown): ReadLinearHook {
  const deliveryId = deliveryIdOf(headers, 'linear-delivery', body);
  const type = (payload as { type?: unknown } | null)?.type;
  const eventName = typeof type === 'string' ? type : (headerOf(headers, 'linear-event') ?? '');
  const ignore = (reason: string): ReadLinearHook => ({ kind: 'ignored', deliveryId, eventName, reason });
  if (eventName !== 'Issue') return ignore(`event ${eventName || '(none)'} is not read`);
  const read = readPayload(issuePayload, payload, eventName);
  const { data } = read;
  const labels = (data.labels ?? []).map((item) => item.name);
  let added: string[] | null = null;
  if (read.action === 'update') {
    const before = read.updatedFrom?.labelIds;
    if (!before) return ignore('issue updated, labels unchanged');
    const had = new Set(before);
    added = (data.labels ?? []).filter((item) => !had.has(item.id)).map((item) => item.name);
    if (added.length === 0) return ignore('no label added');
  } else if (read.action !== 'create') {
    return ignore(`issue ${read.action}`);
  }
  const team = data.team?.key ?? linearTeamOf(data.identifier);
  if (!team) return ignore('issue without a team');
  return {
    kind: 'event',
    deliveryId,
    eventName,
    event: {
      kind: 'linear_issue',
      id: data.id,
      team,
      identifier: data.identifier,
      action: added === null ? 'opened' : 'labeled',
      title: data.title,
      body: data.description ?? '',
      url: data.url ?? read.url ?? '',
      labels,
      addedLabels: added,
    },
  };
}
