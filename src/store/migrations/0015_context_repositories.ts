import type { Kysely } from 'kysely';

/**
 * Context repositories (docs/architecture.md#the-runs-phases): the other repositories a project's agent reads.
 * - `context_repositories`: one row per project and name; its token sealed like the project's
 *   (`store/secrets.ts`), bound to the project and the name.
 * - `jobs.context_repositories`: JSON `[{ name, ref, commit }]`, what the job's latest run read;
 *   null for a job no run has fetched them for (read as an empty list).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('context_repositories')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('token_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('context_repositories_pk', ['project_id', 'name'])
    .execute();
  await db.schema.alterTable('jobs').addColumn('context_repositories', 'text').execute();
}
