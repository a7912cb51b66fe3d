/**
 * Webhooks in the store: endpoints, the delivery log, and the deliverers' claim, assembled into
 * `store.webhooks`. The outbox writer (`outbox.ts`) is not here: job writes call it inside their
 * own transactions.
 */
import type { Db } from '../db.js';
import { deliveryClaimQueries } from './claim.js';
import { deliveryLogQueries } from './deliveries.js';
import { endpointQueries } from './endpoints.js';

export type { AttemptResult, ClaimedDelivery, ClaimOptions, RecordedAs, RetryPolicy } from './claim.js';
export type { ListDeliveriesOptions } from './deliveries.js';
export type { EndpointWithSecret, NewWebhook, WebhookChange } from './endpoints.js';

export function webhookQueries(db: Db) {
  return {
    ...endpointQueries(db),
    ...deliveryLogQueries(db),
    ...deliveryClaimQueries(db),
  };
}

export type WebhookQueries = ReturnType<typeof webhookQueries>;
