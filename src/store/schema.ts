import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  AutomationNoticesTable,
  AutomationRunsTable,
  AutomationsTable,
  HostEventsTable,
  HostPullRequestsTable,
} from './schema-automations.js';
import type { LinearSecretsTable } from './schema-linear.js';
import type {
  SlackChannelsTable,
  SlackEventsTable,
  SlackThreadsTable,
  SlackUsersTable,
} from './schema-slack.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from './schema-webhooks.js';

/**
 * The tables, as Kysely sees them. One schema for SQLite and PostgreSQL: times are ISO 8601 UTC
 * strings of fixed width (`toISOString()`), so they sort and compare the same way in both;
 * booleans are 0/1 integers and structured values are JSON text, for the same reason.
 */
export interface Database {
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  job_messages: JobMessagesTable;
  job_events: JobEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  job_worker_state: JobWorkerStateTable;
  job_progress_messages: JobProgressMessagesTable;
  pull_requests: PullRequestsTable;
  admin_sessions: AdminSessionsTable;
  settings: SettingsTable;
  project_daily_spend: ProjectDailySpendTable;
  spend_reservations: SpendReservationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  host_events: HostEventsTable;
  context_repositories: ContextRepositoriesTable;
  automations: AutomationsTable;
  automation_runs: AutomationRunsTable;
  host_pull_requests: HostPullRequestsTable;
  automation_notices: AutomationNoticesTable;
  slack_channels: SlackChannelsTable;
  slack_users: SlackUsersTable;
  slack_events: SlackEventsTable;
  slack_threads: SlackThreadsTable;
  linear_secrets: LinearSecretsTable;
}

export interface ProjectsTable {
  id: string;
  name: string;
  repository: string;
  host: string;
  base_branch: string;
  publish: string;
  /** JSON array of model ids, or null for "any configured model". */
  allowed_models: string | null;
  default_model: string | null;
  /** JSON object of non-secret host settings (API base URL, owner, repository name, …). */
  host_settings: string | null;
  /** AES-256-GCM ciphertext of the code-host token; never plaintext. */
  host_token_encrypted: string | null;
  /** The sealed secret the code hosts' webhooks into this project carry or sign with; null: none made. */
  hook_secret_sealed: string | null;
  /** 1: the built-in checks run on every job; 0: they do not. */
  built_in_checks: Generated<number>;
  /** 1: archiving a job closes its open pull request. */
  close_pr_on_archive: Generated<number>;
  /** The word that calls the service in a comment (`@agentjobs` by default). */
  mention: Generated<string>;
  /** 1: a pull request quotes text rendered from context repositories; 0 (default): it does not. */
  quote_context: Generated<number>;
  /** The project's own check command, run in the sandbox; null for none. */
  check_command: string | null;
  /** Its time limit; null for the default. */
  check_timeout_seconds: number | null;
  /** `draft` | `fail` | `publish`. */
  on_check_failure: Generated<string>;
  /** Run in the sandbox with network on the base tree before the agent; null for none. */
  setup_command: string | null;
  /** 1: the agent has the `run_command` tool; 0: it does not. */
  agent_commands: Generated<number>;
  /** JSON `SetupReview`: push mode's setup inputs waiting for a person; null for none. */
  setup_review: string | null;
  created_at: string;
  updated_at: string;
  /** USD the project's jobs may spend per UTC day; null for no budget. */
  daily_budget_usd: number | null;
}

/** A project's context repository (docs/architecture.md#the-runs-phases): read by its agent, never written. */
export interface ContextRepositoriesTable {
  project_id: string;
  /** `CONTEXT_REPOSITORY_NAME`, unique in the project. */
  name: string;
  /** An absolute path, a `file://` or an `https://` URL without credentials. */
  repository: string;
  /** The branch read; null: the repository's default branch. */
  ref: string | null;
  host: string;
  /** The code-host token sealed with the server's key (store/secrets.ts), bound to project and name. */
  token_sealed: string | null;
  created_at: string;
}

/** What a project spent per UTC day (`YYYY-MM-DD`), added to with every step of its runs. */
export interface ProjectDailySpendTable {
  project_id: string;
  day: string;
  cost_usd: number;
  /** The worst cases of the project's steps in flight that day (`spend_reservations`). */
  reserved_usd: Generated<number>;
}

/** The reservation a job's run holds for its step in flight, against its project's day. */
export interface SpendReservationsTable {
  job_id: string;
  project_id: string;
  day: string;
  cost_usd: number;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  /** Null for an instance key, which works on every project. */
  project_id: string | null;
  name: string;
  /** `ajs_` and four characters, for lists. */
  prefix: string;
  key_hash: string;
  /** Comma-separated `read`, `write`. */
  scopes: string;
  /** JSON array of addresses and CIDR ranges, or null for any address. */
  ip_allowlist: string | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface JobsTable {
  id: string;
  project_id: string;
  status: string;
  phase: string | null;
  prompt: string;
  model: string | null;
  base_ref: string;
  source_repository: string;
  source_ref: string;
  draft: number;
  pr_link: string | null;
  title: string | null;
  summary: string | null;
  error_code: string | null;
  error_message: string | null;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  /** Input tokens read from the provider's prompt cache (included in `input_tokens`). */
  cached_input_tokens: Generated<number>;
  /** USD; null while the model's price is unknown. */
  cost_usd: number | null;
  steps: Generated<number>;
  files_changed: Generated<number>;
  /** JSON `CheckRun`: the latest run of the job's checks; null before any ran. */
  checks: string | null;
  /** The last event sequence number handed out for this job. */
  event_seq: Generated<number>;
  /** Raised by every claim; the worker fences its writes with it. */
  attempt: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** The earliest time a worker may claim the job (retry backoff). */
  available_at: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  archived_at: string | null;
  /** When an archived job's pull request is next to be closed on its host; null: nothing to do. */
  pr_close_due_at: string | null;
  pr_close_attempts: Generated<number>;
  /** JSON `[{ name, ref, commit }]`: the context repositories the latest run read; null: none yet. */
  context_repositories: string | null;
  /** JSON `{ type, automationId, source }` for a job an automation made; null for API jobs. */
  trigger: string | null;
  /** What its pull request quotes of the prompt when the project quotes no context repository's text; null: the prompt. */
  pull_request_prompt: string | null;
  /** When a person said `stop` on its pull request: no automation run groups into it since; null: they may. */
  grouping_stopped_at: string | null;
}

export interface JobMessagesTable {
  id: string;
  job_id: string;
  content: string;
  created_at: string;
  /** When the agent received it; null while it waits. */
  delivered_at: string | null;
  /** The pull-request command it carries out (`rebase`, `retry`); null for a prompt. It waits for the next run. */
  command: string | null;
}

export interface JobEventsTable {
  job_id: string;
  seq: number;
  type: string;
  at: string;
  /** JSON object. */
  data: string;
}

export interface IdempotencyKeysTable {
  project_id: string;
  key: string;
  request_hash: string;
  /** Null while the first request is in flight. */
  job_id: string | null;
  created_at: string;
  expires_at: string;
  /** The token of the request that reserved the key; null on rows older than migration 0010. */
  owner: string | null;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  expires_at: string;
}

/** What the worker keeps per job beyond the API's row. */
export interface JobWorkerStateTable {
  job_id: string;
  /** JSON array of AI SDK `ModelMessage`s: the conversation a follow-up continues. */
  conversation: string | null;
  /**
   * The newest `job_messages.id` the saved conversation covers. A message after it (or never
   * handed out) is given to the next run, so prompts of a run that died are not lost.
   */
  delivered_through: string | null;
  /** The commit last pushed for the job (its branch head, or the base head in `push` mode). */
  head_sha: string | null;
  /** Leases of the current run that expired; at 3 the job fails with `worker_lost`. */
  lost_attempts: number;
  /**
   * JSON `PublishedRun` (store/queue/published.ts): what the current run published and the outcome
   * it will record; null outside the moment between a push and the run's completion.
   */
  published: string | null;
  /**
   * JSON (store/queue/progress.ts): the current run's written files and how many of its
   * `job_progress_messages` make its conversation after its last finished step, for the attempt that follows a lost one; null when the run ended.
   */
  progress: string | null;
  updated_at: string;
}

/** One message of a run's saved progress (`job_worker_state.progress`), in order by `seq` from 0. */
export interface JobProgressMessagesTable {
  job_id: string;
  seq: number;
  /** JSON of one AI SDK `ModelMessage`. */
  message: string;
}

export interface PullRequestsTable {
  id: string;
  project_id: string;
  /** Per project, rising from 1. */
  number: number;
  job_id: string | null;
  head_branch: string;
  base_branch: string;
  title: string;
  body: string;
  /** `open` | `merged` | `closed`. */
  state: string;
  draft: number;
  head_sha: string | null;
  /** Where its changes start: the merge base of head and base when last opened or updated. */
  base_sha: string | null;
  created_at: string;
  updated_at: string;
  merged_at: string | null;
  closed_at: string | null;
}

export type ProjectRow = Selectable<ProjectsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type JobEventRow = Selectable<JobEventsTable>;
export type JobMessageRow = Selectable<JobMessagesTable>;
export type JobWorkerStateRow = Selectable<JobWorkerStateTable>;
export type PullRequestRow = Selectable<PullRequestsTable>;

export interface AdminSessionsTable {
  /** SHA-256 of the session cookie's value, hex. */
  id: string;
  created_at: string;
  expires_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export * from './schema-automations.js';
export * from './schema-slack.js';
export * from './schema-webhooks.js';
