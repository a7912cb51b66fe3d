import type { Kysely } from 'kysely';

/**
 * Automations and Slack (docs/automations.md#slack):
 * - `automations.notify`: JSON `{ "slack": channel | null }`, where what became of its runs is
 *   posted; null: nowhere. `automations.notify_since`: when that channel was set, so that setting
 *   it never posts what happened before;
 * - `automation_notices`: each notice to post, recorded before it is posted and unique by what it
 *   is about (the automation, the happening and its subject: a pull request's URL, a job's
 *   failure), so a happening seen again, by any process, is never posted twice; claimed by the
 *   notifier under a lease until it is sent, or given up after its tries (`gave_up_at`).
 * A Slack message's run is keyed by `automation_runs.host_event_id` (`slack:CHANNEL:TS`), under
 * the one-event-one-run index of 0021.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('automations').addColumn('notify', 'text').execute();
  await db.schema.alterTable('automations').addColumn('notify_since', 'text').execute();
  await db.schema
    .createTable('automation_notices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('automation_id', 'text', (c) => c.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('happening', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('gave_up_at', 'text')
    .execute();
  await db.schema
    .createIndex('automation_notices_subject')
    .on('automation_notices')
    .columns(['automation_id', 'happening', 'subject'])
    .unique()
    .execute();
  await db.schema
    .createIndex('automation_notices_unsent')
    .on('automation_notices')
    .columns(['sent_at', 'created_at'])
    .execute();
}
