import type { Kysely } from 'kysely';

/**
 * Archiving a job closes its open pull request (unless its project says not to):
 * - `projects.close_pr_on_archive`: 1 (the default) closes, 0 leaves the pull request open;
 * - `jobs.pr_close_due_at`: when an archived job's pull request is next to be closed on its code
 *   host; set in the archive's own transaction (an outbox: a crash cannot lose it), cleared once
 *   closed or given up, so the archive answers without waiting for a host that may be down;
 * - `jobs.pr_close_attempts`: the tries so far, for the backoff.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('close_pr_on_archive', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('jobs').addColumn('pr_close_due_at', 'text').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('pr_close_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('jobs_pr_close_due').on('jobs').column('pr_close_due_at').execute();
}
