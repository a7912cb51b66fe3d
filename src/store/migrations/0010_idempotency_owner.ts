import type { Kysely } from 'kysely';

/**
 * `idempotency_keys.owner`: a token the request that reserved a key chose. Giving the key back
 * after a failed create, and tying it to the job, touch only the caller's own reservation: when a
 * reservation's commit was lost with the database connection, the request cannot know whether it
 * holds the key, and without a token its clean-up could delete another request's reservation.
 * Null on rows reserved before this migration.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
}
