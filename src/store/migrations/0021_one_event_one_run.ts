import type { Kysely } from 'kysely';

/**
 * One event, one run (docs/security.md, "One event, one run"):
 * - `automation_runs.host_event_id`: the code-host event a run was for, unique per automation, so
 *   an event tried again cannot make a second run (or a second job) for an automation that ran;
 * - `automation_runs.detail`: what went wrong, in words, for a run refused (`invalid`) or failed;
 * - `host_events.attempts`: how many times the dispatcher took the event, so an event that keeps
 *   failing ends in failed runs after a bounded number of tries instead of being tried forever;
 *   `host_events.last_error`: why the latest try failed;
 * - `host_events.event_key`: what the event is whatever the delivery (a comment's own URL, which
 *   carries the host's comment id), unique per project, so the same comment delivered again under
 *   a new delivery id is a duplicate.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('automation_runs').addColumn('host_event_id', 'text').execute();
  await db.schema.alterTable('automation_runs').addColumn('detail', 'text').execute();
  await db.schema
    .createIndex('automation_runs_host_event')
    .on('automation_runs')
    .columns(['automation_id', 'host_event_id'])
    .unique()
    .execute();
  await db.schema
    .alterTable('host_events')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('host_events').addColumn('last_error', 'text').execute();
  await db.schema.alterTable('host_events').addColumn('event_key', 'text').execute();
  await db.schema
    .createIndex('host_events_event_key')
    .on('host_events')
    .columns(['project_id', 'event_key'])
    .unique()
    .execute();
}
