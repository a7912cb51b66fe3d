import type { Kysely } from 'kysely';

/**
 * Commands on the agent's own pull requests (docs/automations.md, "Commands on the agent's pull
 * requests"):
 * - `jobs.grouping_stopped_at`: when a person said `stop` on the job's pull request; from then on
 *   no automation run groups into the job (each opens a new one); null: runs may group into it.
 * - `job_messages.command`: the command a message carries out (`rebase`, `retry`); null for a
 *   prompt. Such a message waits for the job's next run rather than joining a running one, and a
 *   run that starts with a `rebase` message makes the branch again on its base first.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('grouping_stopped_at', 'text').execute();
  await db.schema.alterTable('job_messages').addColumn('command', 'text').execute();
}
