import type { Kysely } from 'kysely';

/**
 * What jobs cost (docs/costs.md):
 * - `jobs.cached_input_tokens`: input tokens the provider read from its prompt cache (part of
 *   `input_tokens`); `jobs.cost_usd`: what the job's runs cost, null while the model's price is
 *   unknown. Both grow with every step of a run, not only when it ends.
 * - `projects.daily_budget_usd`: what a project's jobs may spend per UTC day; null for no budget.
 * - `project_daily_spend`: what each project spent on each UTC day (`YYYY-MM-DD`), added to with
 *   every step, so the budget check is one row read.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('cached_input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('cost_usd', 'double precision').execute();
  await db.schema.alterTable('projects').addColumn('daily_budget_usd', 'double precision').execute();
  await db.schema
    .createTable('project_daily_spend')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('project_daily_spend_pk', ['project_id', 'day'])
    .execute();
}
