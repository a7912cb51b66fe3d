import type { Kysely } from 'kysely';

/**
 * `job_worker_state.progress`: what the current run has done so far (its conversation after each
 * finished step, and the files it wrote), so that the next attempt after a lost one continues from
 * there instead of repeating the model's steps (run/progress.ts). Cleared when the run ends.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('job_worker_state').addColumn('progress', 'text').execute();
}
