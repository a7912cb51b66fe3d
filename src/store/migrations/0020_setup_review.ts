import type { Kysely } from 'kysely';

/**
 * Push mode's hold on the setup (docs/security.md, "Setup and the environment"): `setup_review`
 * holds, as JSON, the setup inputs that commits the service pushed to the base branch changed and
 * no person has accepted yet (`files`, `jobIds`, `since`); null when there are none.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('setup_review', 'text').execute();
}
