import type { Kysely } from 'kysely';

/**
 * What the worker and the local code host keep beyond the API's job row:
 * - `job_worker_state`: one row per job that has run; the conversation a follow-up continues, how
 *   far the job's messages are covered by it, the pushed head, and the count of lost leases in the
 *   current run. Kept out of `jobs` so that the API's reads of a job never drag a conversation along.
 * - `pull_requests`: the local code host's pull requests (docs/code-hosts.md); numbered per project,
 *   one per head branch, so a retried run can never open a second one.
 * - an index for finding expired leases.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_worker_state')
    .addColumn('job_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('conversation', 'text')
    .addColumn('delivered_through', 'text')
    .addColumn('head_sha', 'text')
    .addColumn('lost_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('pull_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('head_branch', 'text', (c) => c.notNull())
    .addColumn('base_branch', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('draft', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('head_sha', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('merged_at', 'text')
    .addColumn('closed_at', 'text')
    .execute();
  await db.schema
    .createIndex('pull_requests_project_number')
    .on('pull_requests')
    .columns(['project_id', 'number'])
    .unique()
    .execute();
  // A retried run reuses the pull request of its branch instead of opening a second one.
  await db.schema
    .createIndex('pull_requests_project_head')
    .on('pull_requests')
    .columns(['project_id', 'head_branch'])
    .unique()
    .execute();

  // Reclaiming looks for active jobs whose lease ran out.
  await db.schema.createIndex('jobs_lease').on('jobs').columns(['status', 'lease_expires_at']).execute();
}
