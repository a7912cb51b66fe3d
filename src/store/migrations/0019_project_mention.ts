import type { Kysely } from 'kysely';

/**
 * A project's mention (docs/automations.md): the word that calls
 * the service in a comment on the project's code host, set by an admin; `@agentjobs` by default.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('mention', 'text', (c) => c.notNull().defaultTo('@agentjobs'))
    .execute();
}
