import type { Kysely } from 'kysely';

/**
 * A project's environment and commands (docs/checks.md#the-environment-and-the-agents-commands),
 * set by an admin only (CLI or dashboard):
 * - `setup_command`: a shell command line run in the sandbox, with network, on the base tree before
 *   the agent writes anything (e.g. `npm ci`); what it leaves is cached per project; null for none;
 * - `agent_commands`: 1 when the agent has the `run_command` tool, 0 (the default) when not.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('setup_command', 'text').execute();
  await db.schema
    .alterTable('projects')
    .addColumn('agent_commands', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
