import type { Kysely } from 'kysely';

/**
 * Checks (docs/architecture.md#the-runs-phases):
 * - on `projects`, the check settings an admin sets (CLI or dashboard, never the job API):
 *   `built_in_checks` (1 on, 0 off), `check_command` (a shell command line run in the sandbox, or
 *   null), `check_timeout_seconds` (null for the default) and `on_check_failure`
 *   (`draft` | `fail` | `publish`);
 * - on `jobs`, `checks`: the latest check run as JSON (`CheckRun`), null before any ran.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('built_in_checks', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('projects').addColumn('check_command', 'text').execute();
  await db.schema.alterTable('projects').addColumn('check_timeout_seconds', 'integer').execute();
  await db.schema
    .alterTable('projects')
    .addColumn('on_check_failure', 'text', (c) => c.notNull().defaultTo('draft'))
    .execute();
  await db.schema.alterTable('jobs').addColumn('checks', 'text').execute();
}
