import type { Selectable } from 'kysely';

/** A Slack channel mapped to a project (docs/slack.md). */
export interface SlackChannelsTable {
  channel_id: string;
  project_id: string;
  created_at: string;
}

/** A Slack user id listed for a project: with any listed, only they may ask it. */
export interface SlackUsersTable {
  project_id: string;
  user_id: string;
  created_at: string;
}

/** An event Slack delivered, once per event id. */
export interface SlackEventsTable {
  event_id: string;
  /** JSON of the `SlackMessage` read from the event. */
  event: string;
  received_at: string;
  /** The dispatcher holds the row until then; null: nobody does. */
  claimed_until: string | null;
  processed_at: string | null;
  attempts: number;
  /** What came of it, in words (a job made, or why nothing started); null while it waits. */
  outcome: string | null;
}

/** The thread a job was asked in. */
export interface SlackThreadsTable {
  channel_id: string;
  thread_ts: string;
  project_id: string;
  job_id: string;
  /** The job's `completed_at` last posted in the thread; null: none yet. */
  reported_at: string | null;
  created_at: string;
}

export type SlackEventRow = Selectable<SlackEventsTable>;
export type SlackThreadRow = Selectable<SlackThreadsTable>;
