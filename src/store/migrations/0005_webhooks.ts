import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.js';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type AnyDb = Kysely<any>;

/**
 * Webhooks (docs/api.md):
 * - `webhook_endpoints`: a project's receivers. Secrets are sealed with the server's secret key
 *   (like code-host tokens), bound to the endpoint's id; the one before a rotation is kept, with
 *   the time until which it still signs.
 * - `webhook_events`: the outbox. A job change writes its event here in the same transaction, with
 *   the body to send, so that a crash cannot lose it.
 * - `webhook_deliveries`: one per event and endpoint; claimed with a lease like a job (`attempts`
 *   rises with every claim and fences the result), retried on the schedule until it succeeds or the
 *   schedule is spent.
 * - `webhook_attempts`: the attempt log.
 * The project's old `webhook_url` becomes an endpoint. It has no secret yet (the migration has no
 * key to seal one with), so it starts disabled and says why: rotating its secret makes one.
 */
export async function up(db: AnyDb): Promise<void> {
  await createEndpoints(db);
  await createEvents(db);
  await createDeliveries(db);
  await createAttempts(db);
  await moveWebhookUrlToEndpoints(db);
}

async function createEndpoints(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('events', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_sealed', 'text')
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_project')
    .on('webhook_endpoints')
    .columns(['project_id', 'enabled'])
    .execute();
}

async function createEvents(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

async function createDeliveries(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
}

async function createAttempts(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
}

// The project's old `webhook_url` becomes an endpoint, disabled until its secret is rotated.
async function moveWebhookUrlToEndpoints(db: AnyDb): Promise<void> {
  const now = new Date().toISOString();
  const projects = await db
    .selectFrom('projects')
    .select(['id', 'webhook_url'])
    .where('webhook_url', 'is not', null)
    .where('webhook_url', '!=', '')
    .execute();
  for (const project of projects) {
    await db
      .insertInto('webhook_endpoints')
      .values({
        id: newId(),
        project_id: project.id,
        url: project.webhook_url,
        description: 'Migrated from the project setting "Webhook URL"',
        events: null,
        enabled: 0,
        disabled_reason: 'Migrated without a signing secret: rotate the secret, then enable the endpoint.',
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  await db.schema.alterTable('projects').dropColumn('webhook_url').execute();
}
