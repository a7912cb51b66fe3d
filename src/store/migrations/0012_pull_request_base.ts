import type { Kysely } from 'kysely';

/**
 * `pull_requests.base_sha`: the commit a local pull request's changes start from (the merge base of
 * its head and its base branch when it was last opened or updated), so that once merged or closed
 * its page still shows its commits and diff, which the base branch alone no longer tells.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pull_requests').addColumn('base_sha', 'text').execute();
}
