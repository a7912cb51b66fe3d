import type { Kysely } from 'kysely';

/**
 * Reservations against a project's daily budget (docs/costs.md), so that runs going
 * at once cannot together spend past it:
 * - `project_daily_spend.reserved_usd`: the worst cases of the steps of the project's runs that are
 *   under way on that day; a step may start only while `cost_usd + reserved_usd` is under the budget.
 * - `spend_reservations`: the one reservation a job's run holds (its step in flight), so that it is
 *   given back when the step is settled, the run ends, or its lease is reclaimed.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('project_daily_spend')
    .addColumn('reserved_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('spend_reservations')
    .addColumn('job_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
