import type { Kysely } from 'kysely';

/**
 * Linear's webhooks into a project (docs/automations.md, "Linear"): `linear_secrets` holds the
 * signing secret Linear gave the project's webhook, sealed like the project's other secrets; a
 * project without a row takes no Linear delivery. A table of its own, not a column of `projects`:
 * most projects have none, and removing it is deleting a row.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('linear_secrets')
    .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
