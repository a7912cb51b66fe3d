import type { Kysely } from 'kysely';

/**
 * The code hosts' webhooks (docs/api.md#code-host-webhooks):
 * - `projects.hook_secret_sealed`: the project's hook secret, sealed like its host token;
 * - `host_events`: each delivery recorded before it is answered, unique per project, host and
 *   delivery id (a repeat within the 7 days rows are kept is found here), and claimed by the
 *   automations' dispatcher under a lease until it is marked processed.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('hook_secret_sealed', 'text').execute();
  await db.schema
    .createTable('host_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'text')
    .addColumn('processed_at', 'text')
    .addUniqueConstraint('host_events_delivery', ['project_id', 'host', 'delivery_id'])
    .execute();
  await db.schema
    .createIndex('host_events_unprocessed')
    .on('host_events')
    .columns(['processed_at', 'received_at'])
    .execute();
  await db.schema.createIndex('host_events_received').on('host_events').column('received_at').execute();
}
