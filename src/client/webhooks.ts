import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { components, operations } from './schema.js';
import type { CallOptions, Job } from './types.js';

/* The webhook calls (docs/webhooks.md); their types are the OpenAPI document's (schema.ts). */

type WebhookBody<Name extends 'createWebhook' | 'updateWebhook'> = NonNullable<
  operations[Name]['requestBody']
>['content']['application/json'];

/** A webhook endpoint of a project. Its secret is shown only when it is made or rotated. */
export type Webhook = components['schemas']['Webhook'];
/** An endpoint as made or rotated: `secret` (`whsec_…`) is not shown again. */
export type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
/** One event sent to one endpoint, with every attempt. */
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookDeliveryAttempt = WebhookDelivery['attempts'][number];
export type WebhookEventType = WebhookDelivery['event']['type'];
/** A page of `listDeliveries`. */
export type DeliveryPage =
  operations['listWebhookDeliveries']['responses'][200]['content']['application/json'];
type WebhookList = operations['listWebhooks']['responses'][200]['content']['application/json'];
export type CreateWebhookInput = WebhookBody<'createWebhook'>;
export type UpdateWebhookInput = WebhookBody<'updateWebhook'>;

/** Every event type, in the document's order; the check below fails to compile when one is missing. */
export const WEBHOOK_EVENT_TYPES = [
  'job.created',
  'job.completed',
  'job.failed',
  'job.archived',
  'job.resumed',
  'automation.run',
] as const satisfies readonly WebhookEventType[];
const everyEventType: Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]> extends never
  ? true
  : never = true;
void everyEventType;

/**
 * What a webhook request's body holds (the Standard Webhooks shape); narrow on `type`. The API sends
 * it rather than serves it, so the document has no operation for it: it is made of the document's
 * `Job` and `AutomationRun`.
 */
export type WebhookPayload =
  | { type: Exclude<WebhookEventType, 'automation.run'>; timestamp: string; data: { job: Job } }
  | {
      type: 'automation.run';
      timestamp: string;
      /** The run (skipped ones too), its automation, and the job it made or continued (null when skipped). */
      data: {
        run: components['schemas']['AutomationRun'];
        automation: { id: string; name: string };
        job: Job | null;
      };
    };

/** Sends one request to the API and answers its parsed body, or throws an `AgentJobsError`. */
export type Requester = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  init?: {
    body?: unknown;
    query?: Record<string, string | number | undefined>;
    signal?: AbortSignal | undefined;
    /** Safe to repeat: retried on 429 and 503. */
    retry?: boolean;
  },
) => Promise<never>;

/** The webhook calls of a client. Reads and changes that set a state retry; the rest do not. */
export function webhookCalls(request: Requester, projectOf: (call: CallOptions) => string) {
  const base = (call: CallOptions) => `/v2/agent/${encodeURIComponent(projectOf(call))}/webhooks`;
  const one = (call: CallOptions, webhookId: string) => `${base(call)}/${encodeURIComponent(webhookId)}`;

  return {
    /** Adds an endpoint; the answer holds its secret, shown only here. */
    createWebhook(input: CreateWebhookInput, call: CallOptions = {}): Promise<WebhookWithSecret> {
      return request('POST', base(call), { body: input, signal: call.signal });
    },
    async listWebhooks(call: CallOptions = {}): Promise<Webhook[]> {
      const page: WebhookList = await request('GET', base(call), {
        signal: call.signal,
        retry: true,
      });
      return page.webhooks;
    },
    getWebhook(webhookId: string, call: CallOptions = {}): Promise<Webhook> {
      return request('GET', one(call, webhookId), { signal: call.signal, retry: true });
    },
    /** Changes `url`, `events`, `enabled` or `description`. */
    updateWebhook(webhookId: string, change: UpdateWebhookInput, call: CallOptions = {}): Promise<Webhook> {
      return request('PATCH', one(call, webhookId), { body: change, signal: call.signal, retry: true });
    },
    async deleteWebhook(webhookId: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', one(call, webhookId), { signal: call.signal });
    },
    /** A new secret; the old one still signs for 24 hours. */
    rotateWebhookSecret(webhookId: string, call: CallOptions = {}): Promise<WebhookWithSecret> {
      return request('POST', `${one(call, webhookId)}/rotate-secret`, { signal: call.signal });
    },
    /** Pages of an endpoint's deliveries, newest first, each with its attempts. */
    async *listDeliveries(
      webhookId: string,
      list: CallOptions & { limit?: number; cursor?: string } = {},
    ): AsyncGenerator<DeliveryPage, void, undefined> {
      let cursor = list.cursor;
      do {
        const page: DeliveryPage = await request('GET', `${one(list, webhookId)}/deliveries`, {
          query: { limit: list.limit, cursor },
          signal: list.signal,
          retry: true,
        });
        yield page;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
    /** Sends a delivery again now. */
    redeliver(webhookId: string, deliveryId: string, call: CallOptions = {}): Promise<WebhookDelivery> {
      const path = `${one(call, webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`;
      return request('POST', path, { signal: call.signal });
    },
  };
}

/** Headers as a server framework hands them: a fetch `Headers`, or Node's header record. */
export type IncomingHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks that a webhook request came from agentjobs (its Standard Webhooks signature, made with
 * the endpoint's `secret`, and a timestamp within five minutes) and returns its payload. `body`
 * must be the raw body as received, not parsed and serialised again. Throws
 * `WebhookVerificationError` when the request is not genuine.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: IncomingHeaders,
  secret: string,
): WebhookPayload {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  return new StandardWebhook(secret).verify(payload, flat) as WebhookPayload;
}

export { WebhookVerificationError } from 'standardwebhooks';
