import type { Kysely } from 'kysely';

/**
 * `job_worker_state.published`: what a run had published (its branch pushed at a commit, the pull
 * request opened or still to open) and the outcome to record, written right after the push. A
 * retry of a run that died before recording its completion finishes from it instead of running
 * the agent again. JSON; null when no run is between publishing and completion.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('job_worker_state').addColumn('published', 'text').execute();
}
