/**
 * Linear's webhooks as Linear sends them ("Webhooks", linear.app/developers/webhooks): an `Issue`
 * payload (`create`, or `update` with `updatedFrom.labelIds`), `webhookTimestamp` in milliseconds,
 * and the headers `Linear-Signature` (hex HMAC-SHA256 of the raw body under the webhook's signing
 * secret), `Linear-Delivery` and `Linear-Event`, computed here on the exact bytes sent.
 */
import { createHmac, randomUUID } from 'node:crypto';

/** An issue created (with `labels`) or labelled with `added`, in team `team`. */
export interface LinearIssueSpec {
  action?: 'create' | 'update';
  id?: string;
  team?: string;
  number?: number;
  title?: string;
  description?: string;
  labels?: string[];
  added?: string;
  /** `webhookTimestamp`; now by default. */
  timestamp?: number;
}

const labelId = (name: string) => `label-${name.toLowerCase()}`;

/** The payload Linear sends for the spec. */
export function linearIssuePayload(spec: LinearIssueSpec = {}): Record<string, unknown> {
  const team = spec.team ?? 'ENG';
  const number = spec.number ?? 123;
  const identifier = `${team}-${number}`;
  const before = spec.labels ?? [];
  const after = spec.action === 'update' && spec.added ? [...before, spec.added] : before;
  const url = `https://linear.app/acme/issue/${identifier}/document-the-flag`;
  return {
    action: spec.action ?? 'create',
    type: 'Issue',
    actor: { id: 'user-1', name: 'Reporter', type: 'user' },
    createdAt: new Date().toISOString(),
    data: {
      id: spec.id ?? `issue-${identifier}`,
      identifier,
      number,
      title: spec.title ?? 'Document the --verbose flag',
      description: spec.description ?? 'The docs do not mention --verbose.',
      teamId: `team-${team}`,
      team: { id: `team-${team}`, key: team, name: 'Engineering' },
      labelIds: after.map(labelId),
      labels: after.map((name) => ({ id: labelId(name), name, color: '#bec2c8' })),
      url,
    },
    ...(spec.action === 'update'
      ? { updatedFrom: { labelIds: before.map(labelId), updatedAt: new Date().toISOString() } }
      : {}),
    url,
    organizationId: 'org-1',
    webhookTimestamp: spec.timestamp ?? Date.now(),
    webhookId: 'webhook-1',
  };
}

/** The request Linear would make: the body's bytes and its headers, signed with `secret` unless told otherwise. */
export function linearDelivery(
  payload: Record<string, unknown>,
  secret: string,
  options: { deliveryId?: string; signature?: 'valid' | 'missing' | { secret: string } } = {},
): { body: string; headers: Record<string, string>; deliveryId: string } {
  const body = JSON.stringify(payload);
  const deliveryId = options.deliveryId ?? randomUUID();
  const signing = options.signature ?? 'valid';
  const key = signing === 'valid' ? secret : signing === 'missing' ? null : signing.secret;
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Linear-Webhook',
    'linear-delivery': deliveryId,
    'linear-event': String(payload.type),
  };
  if (key !== null) headers['linear-signature'] = createHmac('sha256', key).update(body).digest('hex');
  return { body, headers, deliveryId };
}
