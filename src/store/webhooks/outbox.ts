/**
 * The webhook outbox (docs/api.md): a job change writes its event, and one delivery per
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

/** An event of any type: its project, the job it is about (empty when none), and its `data`. */
export interface OutgoingEvent {
  projectId: string;
  jobId: string | null;
  type: WebhookEventType;
  /** Sent to a stranger's URL and kept in the delivery log: already redacted. */
  data: Record<string, unknown>;
}

/** Writes an event and its deliveries in the change's transaction. */
export type EmitOutgoingEvent = (trx: Transaction, event: OutgoingEvent) => Promise<void>;

export function webhookOutbox(db: Db): EmitWebhookEvent {
  const emit = outgoingEvents(db);
  // The payload leaves for a stranger's URL and is kept in the delivery log: the prompt is
  // quoted in it, and a prompt may hold a key.
  return (trx, type, job) =>
    emit(trx, {
      projectId: job.projectId,
      jobId: job.id,
      type,
      data: { job: redactValue(job, redactSecrets) },
    });
}

export function outgoingEvents(db: Db): EmitOutgoingEvent {
  return async (trx, { projectId, jobId, type, data }) => {
    const rows = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'events'])
      .where('project_id', '=', projectId)
      .where('enabled', '=', sql.lit(1))
      .execute();
    const endpoints = rows.filter((endpoint) =>
      wantsEvent(endpoint.events ? JSON.parse(endpoint.events) : null, type),
    );
    if (endpoints.length === 0) return;
    const at = new Date().toISOString();
    const eventId = `msg_${newId()}`;
    const payload: WebhookPayload = { type, timestamp: at, data };
    await trx
      .insertInto('webhook_events')
      .values({
        id: eventId,
        project_id: projectId,
        // The column predates events without a job (a skipped automation run): empty then.
        job_id: jobId ?? '',
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
