/**
 * A project's webhook endpoints (docs/webhooks.md), the same for every entry point: the API's
 * routes, the dashboard's Webhooks tab, and the CLI through the API. The rules live here once:
 * the project must exist; the URL and the description are trimmed; the URL must pass the receiver
 * rules (`webhooks/address.ts`: http(s), no credentials or fragment, at most 2,048 characters, a
 * host that resolves only to allowed addresses); a description is at most 500 characters; no
 * event types means all of them. A missing endpoint or delivery of the project is a typed 404.
 */
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { AppError } from '../domain/errors.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../domain/webhook.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { checkWebhookUrl, type Resolve, WebhookUrlError } from '../webhooks/address.js';

/** The longest description an endpoint keeps. */
export const MAX_WEBHOOK_DESCRIPTION_CHARS = 500;

/** What the endpoint operations need. */
export interface WebhookEndpointDeps {
  store: Store;
  config: { webhooks: { allowPrivate: boolean } };
  /** The process's secret box: endpoints' signing secrets are sealed with it. */
  secrets: () => SecretBox;
  /** How a receiver's host name is resolved; the system's resolver when absent (tests give one). */
  resolve?: Resolve;
}

/** An endpoint as a caller asks for it; absent fields take their defaults. */
export interface WebhookEndpointInput {
  url: string;
  /** Absent, null or empty: every event type. */
  events?: WebhookEventType[] | null | undefined;
  description?: string | undefined;
}

/** The fields a change gives; absent ones stay as they are. */
export interface WebhookEndpointChange {
  url?: string | undefined;
  events?: WebhookEventType[] | null | undefined;
  enabled?: boolean | undefined;
  description?: string | undefined;
}

/** An endpoint with its signing secret: the answer to a create or a rotation, shown once. */
export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

/** One page of an endpoint's delivery log, newest first. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

export const webhookNotFound = (webhookId: string) =>
  new AppError('webhook_not_found', `No webhook ${webhookId} in this project.`);

const projectNotFound = (projectId: string) => new AppError('project_not_found', `No project ${projectId}.`);

async function requireProject(deps: Pick<WebhookEndpointDeps, 'store'>, projectId: string): Promise<void> {
  if (!(await deps.store.projects.get(projectId))) throw projectNotFound(projectId);
}

/**
 * The URL as it is kept: trimmed, and allowed by the receiver rules.
 * @throws AppError `invalid_request` (empty), `webhook_url_not_allowed` (with the rule's sentence)
 */
async function allowedUrl(deps: WebhookEndpointDeps, text: string): Promise<string> {
  const url = text.trim();
  if (url === '')
    throw new AppError('invalid_request', 'url is required', {
      details: [{ path: 'body.url', message: 'is required' }],
    });
  try {
    await checkWebhookUrl(url, deps.config.webhooks.allowPrivate, deps.resolve);
    return url;
  } catch (error) {
    if (!(error instanceof WebhookUrlError)) throw error;
    throw new AppError('webhook_url_not_allowed', error.message, {
      details: [{ path: 'body.url', message: error.message }],
    });
  }
}

/** The description as it is kept: trimmed, at most 500 characters. @throws AppError `invalid_request` */
function checkedDescription(text: string): string {
  const description = text.trim();
  if (description.length > MAX_WEBHOOK_DESCRIPTION_CHARS) {
    const message = `must be at most ${MAX_WEBHOOK_DESCRIPTION_CHARS} characters`;
    throw new AppError('invalid_request', `description ${message}`, {
      details: [{ path: 'body.description', message }],
    });
  }
  return description;
}

const allEventsWhenEmpty = (events: WebhookEventType[] | null | undefined) =>
  events && events.length > 0 ? events : null;

/**
 * Adds an endpoint with a new signing secret, which the answer carries (shown once).
 * @throws AppError `project_not_found`, `invalid_request`, `webhook_url_not_allowed`
 */
export async function createWebhookEndpoint(
  deps: WebhookEndpointDeps,
  projectId: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpointWithSecret> {
  await requireProject(deps, projectId);
  const description = checkedDescription(input.description ?? '');
  const url = await allowedUrl(deps, input.url);
  return deps.store.webhooks.create(
    { projectId, url, events: allEventsWhenEmpty(input.events), description },
    deps.secrets(),
  );
}

/** The project's endpoints, without their secrets. @throws AppError `project_not_found` */
export async function listWebhookEndpoints(
  deps: Pick<WebhookEndpointDeps, 'store'>,
  projectId: string,
): Promise<WebhookEndpoint[]> {
  await requireProject(deps, projectId);
  return deps.store.webhooks.list(projectId);
}

/** One endpoint of the project. @throws AppError `webhook_not_found` */
export async function getWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, 'store'>,
  projectId: string,
  webhookId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.store.webhooks.get(projectId, webhookId);
  if (!endpoint) throw webhookNotFound(webhookId);
  return endpoint;
}

/**
 * Changes the fields given, by the same rules as a create. Enabling clears what the service
 * recorded against the endpoint; an endpoint without a secret (migrated) is refused until a
 * rotation gives it one.
 * @throws AppError `webhook_not_found`, `invalid_request`, `webhook_url_not_allowed`
 */
export async function updateWebhookEndpoint(
  deps: WebhookEndpointDeps,
  projectId: string,
  webhookId: string,
  change: WebhookEndpointChange,
): Promise<WebhookEndpoint> {
  const description = change.description === undefined ? undefined : checkedDescription(change.description);
  const url = change.url === undefined ? undefined : await allowedUrl(deps, change.url);
  const endpoint = await deps.store.webhooks.update(projectId, webhookId, {
    ...(url !== undefined ? { url } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(change.events !== undefined ? { events: allEventsWhenEmpty(change.events) } : {}),
    ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
  });
  if (!endpoint) throw webhookNotFound(webhookId);
  return endpoint;
}

/** Deletes the endpoint and its delivery log. @throws AppError `webhook_not_found` */
export async function deleteWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, 'store'>,
  projectId: string,
  webhookId: string,
): Promise<void> {
  if (!(await deps.store.webhooks.remove(projectId, webhookId))) throw webhookNotFound(webhookId);
}

/**
 * A new signing secret; the current one keeps signing beside it for 24 hours.
 * @throws AppError `webhook_not_found`
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookEndpointDeps, 'store' | 'secrets'>,
  projectId: string,
  webhookId: string,
): Promise<WebhookEndpointWithSecret> {
  const rotated = await deps.store.webhooks.rotateSecret(projectId, webhookId, deps.secrets());
  if (!rotated) throw webhookNotFound(webhookId);
  return rotated;
}

/**
 * A page of the endpoint's deliveries, newest first, each with its attempts. `cursor` is the
 * `nextCursor` of the page before.
 * @throws AppError `webhook_not_found`, `invalid_request` (a cursor this service did not make)
 */
export async function listWebhookDeliveries(
  deps: Pick<WebhookEndpointDeps, 'store'>,
  projectId: string,
  webhookId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<DeliveryPage> {
  await getWebhookEndpoint(deps, projectId, webhookId);
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  const found = await deps.store.webhooks.listDeliveries(webhookId, {
    limit: page.limit,
    ...(before ? { before } : {}),
  });
  const last = found.deliveries.at(-1);
  return { deliveries: found.deliveries, nextCursor: found.more && last ? encodeCursor(last.id) : null };
}

/**
 * Queues a delivery to be sent again at once, with the same webhook-id.
 * @throws AppError `webhook_not_found`, `delivery_not_found`
 */
export async function redeliverWebhookDelivery(
  deps: Pick<WebhookEndpointDeps, 'store'>,
  projectId: string,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  await getWebhookEndpoint(deps, projectId, webhookId);
  const delivery = await deps.store.webhooks.redeliver(webhookId, deliveryId);
  if (!delivery) throw new AppError('delivery_not_found', `No delivery ${deliveryId} of this webhook.`);
  return delivery;
}
