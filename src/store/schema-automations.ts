/** The tables of automations: the code hosts' recorded events, automations and their runs. */
import type { Selectable } from 'kysely';

/** A code host's webhook delivery, recorded before it is answered (`store.hostEvents`). */
export interface HostEventsTable {
  id: string;
  project_id: string;
  /** `github` | `gitlab` | `gitea` | `poll`. */
  host: string;
  /** The host's delivery id; unique per project and host. */
  delivery_id: string;
  /** JSON of the `HostEvent`. */
  event: string;
  received_at: string;
  /** A dispatcher holds the row until then; null: nobody does. */
  claimed_until: string | null;
  processed_at: string | null;
  /** How many times a dispatcher took the event: an event is tried a bounded number of times. */
  attempts: number;
  /** Why the latest try failed; null when none did. */
  last_error: string | null;
  /** What the event is whatever its delivery id (a comment's URL); unique per project when set. */
  event_key: string | null;
}

export type HostEventRow = Selectable<HostEventsTable>;
/** A project's automations (docs/automations.md). */
export interface AutomationsTable {
  id: string;
  project_id: string;
  name: string;
  enabled: number;
  /** JSON: the trigger object. */
  trigger: string;
  prompt: string;
  /** 1: runs while its latest job's pull request is open are follow-ups on that job. */
  group_runs: number;
  draft: number;
  model: string | null;
  base_ref: string | null;
  /** JSON array of author names. */
  allowed_authors: string;
  /** The latest job a run created or grouped into: what grouping follows up on. */
  last_job_id: string | null;
  /** The watched branch's head last seen (code and content changes); null before any. */
  last_head: string | null;
  created_at: string;
  updated_at: string;
  last_run_at: string | null;
  /** A schedule's next time while enabled; null otherwise. */
  next_run_at: string | null;
  /** JSON `{ slack }`: where what became of its runs is posted; null: nowhere. */
  notify: string | null;
  /** When the notify channel was set: nothing before it is posted. */
  notify_since: string | null;
}

/** Every event an automation saw, and what came of it. */
export interface AutomationRunsTable {
  id: string;
  automation_id: string;
  project_id: string;
  at: string;
  trigger_type: string;
  source: string;
  /** `created` | `grouped` | `skipped` | `failed`. */
  outcome: string;
  reason: string | null;
  job_id: string | null;
  /** For a schedule's run: the time it was for (unique per automation). */
  scheduled_for: string | null;
  /** For a code-host event's run: the event (unique per automation: one event, one run). */
  host_event_id: string | null;
  /** What went wrong, in words, for a run refused as `invalid` or `failed`. */
  detail: string | null;
}

/**
 * A pull request a job opened on GitHub, GitLab or Gitea, in the state the service last learned
 * from the host; the local host's are in `pull_requests`.
 */
export interface HostPullRequestsTable {
  project_id: string;
  number: number;
  /** `open` | `merged` | `closed`. */
  state: string;
  checked_at: string;
}

/** A notice of what became of an automation's run, recorded before it is posted (`store/automation-notices.ts`). */
export interface AutomationNoticesTable {
  id: string;
  automation_id: string;
  project_id: string;
  /** Null for a run that failed before it made a job. */
  job_id: string | null;
  /** `pr_opened` | `pr_merged` | `run_failed`. */
  happening: string;
  /** What makes it one of a kind with the automation and the happening (a pull request's URL). */
  subject: string;
  channel: string;
  text: string;
  created_at: string;
  /** The notifier holds the row until then; null: nobody does. */
  claimed_until: string | null;
  attempts: number;
  /** Why the latest try failed; null when none did, or none ended (an unknown outcome). */
  last_error: string | null;
  sent_at: string | null;
  /** When the notifier stopped trying (every try failed); null while it tries. */
  gave_up_at: string | null;
}

export type AutomationNoticeRow = Selectable<AutomationNoticesTable>;
export type AutomationRow = Selectable<AutomationsTable>;
export type AutomationRunRow = Selectable<AutomationRunsTable>;
