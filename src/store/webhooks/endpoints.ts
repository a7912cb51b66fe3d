/**
 * A project's webhook endpoints. Secrets are made here, sealed with the server's key and bound to
 * the endpoint's id; the plain secret leaves only in the answer to a create or a rotation.
 */
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import {
  newWebhookSecret,
  SECRET_OVERLAP_MS,
  type WebhookEndpoint,
  type WebhookEventType,
} from '../../domain/webhook.js';
import type { Db } from '../db.js';
import type { WebhookEndpointRow } from '../schema.js';
import type { SecretBox } from '../secrets.js';

export interface NewWebhook {
  projectId: string;
  url: string;
  /** null or empty: every event type. */
  events: WebhookEventType[] | null;
  description: string;
}

export interface WebhookChange {
  url?: string;
  events?: WebhookEventType[] | null;
  enabled?: boolean;
  description?: string;
}

/** An endpoint with its new secret: the one moment the secret is shown. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

const eventsColumn = (events: WebhookEventType[] | null | undefined) =>
  events && events.length > 0 ? JSON.stringify(events) : null;

export function toEndpoint(row: WebhookEndpointRow, now = Date.now()): WebhookEndpoint {
  const overlap =
    row.previous_secret_expires_at && Date.parse(row.previous_secret_expires_at) > now
      ? row.previous_secret_expires_at
      : null;
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    description: row.description,
    events: row.events ? (JSON.parse(row.events) as WebhookEventType[]) : null,
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    previousSecretExpiresAt: overlap,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function endpointQueries(db: Db) {
  return { ...endpointRecords(db), ...endpointSecrets(db) };
}

function endpointRow(db: Db, projectId: string, id: string) {
  return db
    .read()
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
}

/**
 * The columns an update sets. Enabling clears what the service had recorded against the endpoint
 * (why it was disabled, since when it fails); an endpoint without a secret (migrated) cannot be
 * enabled before a rotation gives it one.
 */
function changedColumns(current: WebhookEndpointRow, change: WebhookChange): Partial<WebhookEndpointRow> {
  const set: Partial<WebhookEndpointRow> = { updated_at: new Date().toISOString() };
  if (change.url !== undefined) set.url = change.url;
  if (change.description !== undefined) set.description = change.description;
  if (change.events !== undefined) set.events = eventsColumn(change.events);
  if (change.enabled === true) {
    if (!current.secret_sealed) {
      throw new AppError(
        'invalid_request',
        'This endpoint has no signing secret yet: rotate its secret first, then enable it.',
      );
    }
    Object.assign(set, { enabled: 1, disabled_reason: null, failing_since: null });
  } else if (change.enabled === false) {
    Object.assign(set, { enabled: 0, disabled_reason: null });
  }
  return set;
}

/** Creating, reading, changing and deleting endpoints. */
function endpointRecords(db: Db) {
  return {
    async create(input: NewWebhook, secrets: SecretBox): Promise<EndpointWithSecret> {
      const now = new Date().toISOString();
      const id = newId();
      const secret = newWebhookSecret();
      const record: WebhookEndpointRow = {
        id,
        project_id: input.projectId,
        url: input.url,
        description: input.description,
        events: eventsColumn(input.events),
        enabled: 1,
        disabled_reason: null,
        secret_sealed: secrets.seal(secret, id),
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      };
      await db.writeStatement((executor) =>
        executor.insertInto('webhook_endpoints').values(record).execute(),
      );
      return { endpoint: toEndpoint(record), secret };
    },

    /** Oldest first. */
    async list(projectId: string): Promise<WebhookEndpoint[]> {
      const rows = await db
        .read()
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
      return rows.map((found) => toEndpoint(found));
    },

    async get(projectId: string, id: string): Promise<WebhookEndpoint | undefined> {
      const found = await endpointRow(db, projectId, id);
      return found && toEndpoint(found);
    },

    /**
     * Changes an endpoint; undefined when the project has no such endpoint. Enabling clears what
     * the service had recorded against it (why it was disabled, since when it fails); an endpoint
     * without a secret (migrated) cannot be enabled before a rotation gives it one.
     */
    async update(projectId: string, id: string, change: WebhookChange): Promise<WebhookEndpoint | undefined> {
      return db.write(async (trx) => {
        const current = await db
          .lockForUpdate(
            trx
              .selectFrom('webhook_endpoints')
              .selectAll()
              .where('id', '=', id)
              .where('project_id', '=', projectId),
          )
          .executeTakeFirst();
        if (!current) return undefined;
        const set = changedColumns(current, change);
        await trx.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
        return toEndpoint({ ...current, ...set });
      });
    },

    /** Deletes the endpoint with its deliveries and their attempts; false when there is none. */
    async remove(projectId: string, id: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .deleteFrom('webhook_endpoints')
          .where('id', '=', id)
          .where('project_id', '=', projectId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** Checking and rotating an endpoint's signing secret. */
function endpointSecrets(db: Db) {
  return {
    /**
     * Whether `secret` is the endpoint's current secret (compared in constant time): the dashboard
     * checks the secret it carries to the next page before it shows it.
     */
    async isCurrentSecret(
      projectId: string,
      id: string,
      secret: string,
      secrets: SecretBox,
    ): Promise<boolean> {
      const found = await endpointRow(db, projectId, id);
      if (!found?.secret_sealed) return false;
      const current = Buffer.from(secrets.open(found.secret_sealed, id));
      const given = Buffer.from(secret);
      return current.length === given.length && timingSafeEqual(current, given);
    },

    /**
     * A new secret; the current one keeps signing beside it for 24 hours, so receivers can switch
     * without missing a delivery. Undefined when the project has no such endpoint.
     */
    async rotateSecret(
      projectId: string,
      id: string,
      secrets: SecretBox,
    ): Promise<EndpointWithSecret | undefined> {
      return db.write(async (trx) => {
        const current = await db
          .lockForUpdate(
            trx
              .selectFrom('webhook_endpoints')
              .selectAll()
              .where('id', '=', id)
              .where('project_id', '=', projectId),
          )
          .executeTakeFirst();
        if (!current) return undefined;
        const now = Date.now();
        const secret = newWebhookSecret();
        const set = {
          secret_sealed: secrets.seal(secret, id),
          previous_secret_sealed: current.secret_sealed,
          previous_secret_expires_at: current.secret_sealed
            ? new Date(now + SECRET_OVERLAP_MS).toISOString()
            : null,
          updated_at: new Date(now).toISOString(),
        };
        await trx.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
        return { endpoint: toEndpoint({ ...current, ...set }, now), secret };
      });
    },
  };
}
