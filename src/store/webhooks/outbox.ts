/**
 * The webhook outbox (DESIGN section 3): a job change writes its event, and one delivery per
 * endpoint that wants it, inside the change's own transaction. Either both commit or neither, so an
 * event cannot be lost to a crash between the change and the send: whichever process delivers
 * (any API or worker process) finds it in the table. A project without endpoints costs one indexed
 * read per change.
 */
import { sql } from 'kysely';
import { newId } from '../../domain/ids.js';
import type { Job } from '../../domain/job.js';
import { redactSecrets, redactValue } from '../../domain/redact.js';
import { type WebhookEventType, type WebhookPayload, wantsEvent } from '../../domain/webhook.js';
import { WEBHOOKS_CHANNEL } from '../channels.js';
import type { Db, Transaction } from '../db.js';

/** Writes the webhook event `type` for `job` (as it is after the change) in the change's transaction. */
export type EmitWebhookEvent = (trx: Transaction, type: WebhookEventType, job: Job) => Promise<void>;

export function webhookOutbox(db: Db): EmitWebhookEvent {
  return async (trx, type, job) => {
    const rows = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'events'])
      .where('project_id', '=', job.projectId)
      .where('enabled', '=', sql.lit(1))
      .execute();
    const endpoints = rows.filter((endpoint) =>
      wantsEvent(endpoint.events ? JSON.parse(endpoint.events) : null, type),
    );
    if (endpoints.length === 0) return;
    const at = new Date().toISOString();
    const eventId = `msg_${newId()}`;
    // The payload leaves for a stranger's URL and is kept in the delivery log: the prompt is
    // quoted in it, and a prompt may hold a key.
    const payload: WebhookPayload = { type, timestamp: at, data: { job: redactValue(job, redactSecrets) } };
    await trx
      .insertInto('webhook_events')
      .values({
        id: eventId,
        project_id: job.projectId,
        job_id: job.id,
        type,
        payload: JSON.stringify(payload),
        created_at: at,
      })
      .execute();
    await trx
      .insertInto('webhook_deliveries')
      .values(
        endpoints.map((endpoint) => ({
          id: newId(),
          event_id: eventId,
          endpoint_id: endpoint.id,
          status: 'pending',
          next_attempt_at: at,
          lease_owner: null,
          lease_expires_at: null,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    await db.notify(WEBHOOKS_CHANNEL, eventId);
  };
}
