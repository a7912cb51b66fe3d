import type { Kysely } from 'kysely';

/**
 * Automations (docs/api.md): the automations of a project, every run they made or skipped,
 * and the job field `trigger` (what started a job an automation made; null for API jobs).
 * - `automations.next_run_at`: a schedule's next time; the scheduler claims a time by moving it on
 *   with a conditional update, so only one process runs each time.
 * - `automations.last_head`: the head of the watched branch last seen (code and content changes);
 *   a run takes a new head with a conditional update, so a head reported twice (by a push and a
 *   merged pull request, by a hook and the poll) starts one run.
 * - `automation_runs.scheduled_for`: the schedule time a run was for; unique per automation, a
 *   second guard against a time run twice.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('automations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('group_runs', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('draft', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model', 'text')
    .addColumn('base_ref', 'text')
    .addColumn('allowed_authors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('last_job_id', 'text')
    .addColumn('last_head', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_run_at', 'text')
    .addColumn('next_run_at', 'text')
    .execute();
  await db.schema
    .createIndex('automations_project')
    .on('automations')
    .columns(['project_id', 'id'])
    .execute();
  await db.schema.createIndex('automations_next_run').on('automations').column('next_run_at').execute();
  await db.schema
    .createTable('automation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('automation_id', 'text', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('job_id', 'text')
    .addColumn('scheduled_for', 'text')
    .execute();
  await db.schema
    .createIndex('automation_runs_by_automation')
    .on('automation_runs')
    .columns(['automation_id', 'id'])
    .execute();
  await db.schema
    .createIndex('automation_runs_scheduled')
    .on('automation_runs')
    .columns(['automation_id', 'scheduled_for'])
    .unique()
    .execute();
  await db.schema.alterTable('jobs').addColumn('trigger', 'text').execute();
}
