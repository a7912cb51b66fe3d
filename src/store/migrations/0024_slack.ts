import type { Kysely } from 'kysely';

/**
 * Slack (docs/slack.md):
 * - `slack_channels`: a channel mapped to the project a mention there asks (one project a channel);
 * - `slack_users`: the Slack user ids that alone may ask a project, when it lists any;
 * - `slack_events`: each event Slack delivered, recorded before it is answered and unique by
 *   Slack's event id (a retry, or the same event over HTTP and Socket Mode, is found here), and
 *   claimed by the Slack dispatcher under a lease until it is marked processed;
 * - `slack_threads`: the thread a job was asked in, where its news is posted and whose replies are
 *   its follow-ups; `reported_at` is the job's `completed_at` last posted there.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('slack_channels')
    .addColumn('channel_id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('slack_channels_project').on('slack_channels').column('project_id').execute();
  await db.schema
    .createTable('slack_users')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('slack_users_key', ['project_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('slack_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'text')
    .addColumn('processed_at', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('outcome', 'text')
    .execute();
  await db.schema
    .createIndex('slack_events_unprocessed')
    .on('slack_events')
    .columns(['processed_at', 'received_at'])
    .execute();
  await db.schema
    .createTable('slack_threads')
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('thread_ts', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('reported_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('slack_threads_key', ['channel_id', 'thread_ts'])
    .execute();
  await db.schema.createIndex('slack_threads_job').on('slack_threads').column('job_id').execute();
}
