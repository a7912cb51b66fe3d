/**
 * Webhooks (docs/api.md): a project's endpoints, the events they get, the deliveries and their
 * attempts, and the rules a receiver's URL must keep (the address ranges are in `webhook-address.ts`).
 * Pure: resolving a host name is I/O and lives in `webhooks/address.ts`, which applies
 * `addressRefusal` to what the name resolves to.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { addressRefusal } from './webhook-address.js';

export const WEBHOOK_EVENT_TYPES = [
  'job.created',
  'job.completed',
  'job.failed',
  'job.archived',
  'job.resumed',
  'automation.run',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A receiver of a project's job events. Its secret is never part of it (shown once, at creation). */
export interface WebhookEndpoint {
  id: string;
  projectId: string;
  url: string;
  description: string;
  /** The event types it gets; null for all of them. */
  events: WebhookEventType[] | null;
  enabled: boolean;
  /** Why it was disabled by the service (5 days of failures, a migrated URL without a secret); null otherwise. */
  disabledReason: string | null;
  /** Since when every attempt failed; null after a success or before any failure. */
  failingSince: string | null;
  /** Until when the secret before the last rotation still signs too; null when none does. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One try at sending a delivery. */
export interface WebhookAttempt {
  at: string;
  /** The receiver's status code; null when no response came (refused, timed out, not allowed). */
  responseStatus: number | null;
  durationMs: number;
  /** What went wrong, in words; null on success. */
  error: string | null;
  /** The start of the response body, capped (`MAX_RESPONSE_EXCERPT_CHARS`). */
  responseExcerpt: string | null;
}

/** The body of every webhook request (the Standard Webhooks shape). */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** One event on its way to one endpoint. */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  /** The event: `id` is the `webhook-id` header, the same on every attempt. */
  event: { id: string } & WebhookPayload;
  status: WebhookDeliveryStatus;
  /** When the next attempt is due; null once it succeeded or gave up. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Oldest first. */
  attempts: WebhookAttempt[];
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_RESPONSE_EXCERPT_CHARS = 1024;
/** An endpoint whose every attempt failed for this long is disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
/** How long the secret before a rotation keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A new signing secret in the Standard Webhooks form: `whsec_` and base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Whether an endpoint subscribed to events of `type`. */
export const wantsEvent = (events: readonly WebhookEventType[] | null, type: WebhookEventType): boolean =>
  events === null || events.length === 0 || events.includes(type);

/** Host names that always name a metadata service. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/**
 * Why a receiver at `address` (an IP address) is refused, as a clause ("127.0.0.1 is a loopback
 * address"), or null when it may be sent to. Loopback and private ranges pass with `allowPrivate`;
 * the rest (`addressRefusal`) never.
 */
export function addressProblem(address: string, allowPrivate: boolean): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  const refusal = addressRefusal(address, allowPrivate);
  return refusal === null ? null : `${address} is ${refusal}`;
}

/**
 * The one sentence every refused webhook URL is reported with, in the API, the dashboard, the CLI
 * and a delivery's attempt log: `problem` is a clause from `webhookUrlProblem` or the name check.
 */
export const webhookUrlRefusal = (problem: string): string => `The URL is not allowed: ${problem}.`;

/** The host of a parsed URL as DNS or an IP parser takes it: no IPv6 brackets, no trailing dot. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');

/**
 * Why `text` cannot be a receiver's URL, as a clause for `webhookUrlRefusal`, or null. The rules
 * that need no network: http(s) only, no credentials, no fragment, at most 2,048 characters, and a
 * host that is not a refused IP literal or metadata name. A host name still has to resolve to allowed addresses (`webhooks/address.ts`).
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | null {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return `it must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'it is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'it must be an http or https URL';
  if (url.username || url.password) return 'it must not contain credentials (user:password@)';
  if (url.hash || text.includes('#')) return 'it must not contain a fragment (#…)';
  const host = hostOf(url);
  if (!host) return 'it must name a host';
  if (METADATA_HOSTS.has(host.toLowerCase())) return `${host} is a metadata service`;
  if (isIP(host) !== 0) return addressProblem(host, allowPrivate);
  return null;
}

/**
 * The wait before the retry after `failures` failed attempts, with ±20% jitter so that the
 * retries of many deliveries that failed together (a receiver that was down) do not arrive
 * together; null when the schedule is spent. `random` is in [0, 1).
 */
export function retryDelayMs(schedule: readonly number[], failures: number, random: number): number | null {
  const base = schedule[failures - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random));
}
