import type { Kysely } from 'kysely';

/**
 * `job_progress_messages`: the messages of a run's saved progress, one row each, so that saving
 * after a step writes only the messages the step added instead of the whole conversation again
 * (store/queue/progress.ts). `job_worker_state.progress` keeps the rest of the record and how many
 * of these rows it covers. Rows are removed with the progress when the run ends.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_progress_messages')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_progress_messages_pk', ['job_id', 'seq'])
    .execute();
}
