/** The tables of outgoing webhooks: endpoints, the events they are sent, deliveries and attempts. */
import type { Generated, Selectable } from 'kysely';

export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  url: string;
  description: string;
  /** JSON array of event types, or null for all. */
  events: string | null;
  enabled: number;
  disabled_reason: string | null;
  /** The signing secret sealed with the server's key (store/secrets.ts), bound to the endpoint id. */
  secret_sealed: string | null;
  /** The secret before the last rotation, signing too until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  /** The first failed attempt since the last success; null while deliveries succeed. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** The outbox: one row per job change that an endpoint subscribed to. */
export interface WebhookEventsTable {
  /** `msg_<ulid>`: the `webhook-id` header, the same on every attempt. */
  id: string;
  project_id: string;
  job_id: string;
  type: string;
  /** The JSON body sent, byte for byte (it is what the signature covers). */
  payload: string;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  /** `pending` | `succeeded` | `failed`. */
  status: string;
  /** Failed attempts in the current schedule (a redeliver starts a new one). */
  failures: Generated<number>;
  /** Raised by every claim; fences the claim's result like a job's `attempt`. */
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  /** The claim (`webhook_deliveries.attempts`) this attempt was made under. */
  attempt: number;
  at: string;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
