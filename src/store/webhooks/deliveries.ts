/** The delivery log an endpoint's owner reads: deliveries newest first, each with its attempts; redeliver. */
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookPayload,
} from '../../domain/webhook.js';
import { WEBHOOKS_CHANNEL } from '../channels.js';
import type { Db, Queryable } from '../db.js';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../schema.js';

export interface ListDeliveriesOptions {
  limit: number;
  /** Only deliveries older than this id (the previous page's last). */
  before?: string;
}

type DeliveryWithPayload = WebhookDeliveryRow & { payload: string };

function toDelivery(row: DeliveryWithPayload, attempts: WebhookAttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.endpoint_id,
    event: { id: row.event_id, ...(JSON.parse(row.payload) as WebhookPayload) },
    status: row.status as WebhookDeliveryStatus,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attempts: attempts.map(
      (attempt): WebhookAttempt => ({
        at: attempt.at,
        responseStatus: attempt.response_status === null ? null : Number(attempt.response_status),
        durationMs: Number(attempt.duration_ms),
        error: attempt.error,
        responseExcerpt: attempt.response_excerpt,
      }),
    ),
  };
}

/** The rows with their attempts, oldest attempt first. */
async function withAttempts(executor: Queryable, rows: DeliveryWithPayload[]): Promise<WebhookDelivery[]> {
  if (rows.length === 0) return [];
  const attempts = await executor
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('delivery_id')
    .orderBy('attempt')
    .execute();
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.delivery_id, list);
  }
  return rows.map((row) => toDelivery(row, byDelivery.get(row.id) ?? []));
}

export function deliveryLogQueries(db: Db) {
  const deliveries = (executor: Queryable, endpointId: string) =>
    executor
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
      .selectAll('d')
      .select('v.payload')
      .where('d.endpoint_id', '=', endpointId);

  const getDelivery = async (
    endpointId: string,
    deliveryId: string,
  ): Promise<WebhookDelivery | undefined> => {
    const executor = db.read();
    const row = await deliveries(executor, endpointId).where('d.id', '=', deliveryId).executeTakeFirst();
    return row ? (await withAttempts(executor, [row]))[0] : undefined;
  };

  return {
    getDelivery,

    /** Newest first, with whether more exist. The caller checks that the endpoint is the project's. */
    async listDeliveries(
      endpointId: string,
      options: ListDeliveriesOptions,
    ): Promise<{ deliveries: WebhookDelivery[]; more: boolean }> {
      const executor = db.read();
      let query = deliveries(executor, endpointId);
      if (options.before) query = query.where('d.id', '<', options.before);
      const rows = await query
        .orderBy('d.id', 'desc')
        .limit(options.limit + 1)
        .execute();
      const page = rows.slice(0, options.limit);
      return { deliveries: await withAttempts(executor, page), more: rows.length > options.limit };
    },

    /**
     * Sends the delivery again now, whatever its status, on a fresh retry schedule; same event, same
     * `webhook-id`. Undefined when the endpoint has no such delivery.
     */
    async redeliver(endpointId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
      const at = new Date().toISOString();
      const changed = await db.write(async (trx) => {
        const result = await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', failures: 0, next_attempt_at: at, updated_at: at })
          .where('id', '=', deliveryId)
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await db.notify(WEBHOOKS_CHANNEL, deliveryId);
        return true;
      });
      return changed ? getDelivery(endpointId, deliveryId) : undefined;
    },

    /**
     * Forgets what ended before `before`: finished deliveries (their attempts go with them), then
     * events no delivery refers to any more. Pending deliveries stay, however old. Returns how many
     * deliveries and events went.
     */
    async pruneDeliveries(before: Date): Promise<{ deliveries: number; events: number }> {
      const cutoff = before.toISOString();
      return db.write(async (trx) => {
        const deliveries = await trx
          .deleteFrom('webhook_deliveries')
          .where('status', 'in', ['succeeded', 'failed'])
          .where('updated_at', '<', cutoff)
          .executeTakeFirst();
        const events = await trx
          .deleteFrom('webhook_events')
          .where('created_at', '<', cutoff)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('webhook_deliveries')
                  .select('webhook_deliveries.id')
                  .whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'),
              ),
            ),
          )
          .executeTakeFirst();
        return { deliveries: Number(deliveries.numDeletedRows), events: Number(events.numDeletedRows) };
      });
    },
  };
}
