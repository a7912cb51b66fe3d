import type { Kysely } from 'kysely';

/**
 * The state of the pull requests a job opened on GitHub, GitLab or Gitea, as the service last
 * learned it from the host (a poll, a follow-up's or a grouping's question): what an automation's
 * runs show (`review_needed`, `accepted`, `closed`), and whether a run groups into the job. The
 * local host's pull requests have their own records (`pull_requests`). One row per pull request.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('host_pull_requests')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('host_pull_requests_pk', ['project_id', 'number'])
    .execute();
}
