/**
 * A job's activity as the API, the dashboard and webhooks show it (docs/webhooks.md): one
 * union by `type`, so that every producer and every reader of an event is checked by the compiler.
 */
import type { CheckRun } from './checks.js';
import type { JobError, JobPhase, JobStatus, RunUsage } from './job.js';

export const EVENT_TYPES = [
  'status',
  'phase',
  'message',
  'tool_call',
  'tool_result',
  'plan',
  'setup',
  'check',
  'commit',
  'pull_request',
  'usage',
  'context',
  'error',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Why a job went back to the queue or waits there, or why a running job waits. */
export type PhaseReason =
  | 'released'
  | 'lease_expired'
  // The worker holding the job was found gone (its process ended) by a worker of its data directory.
  | 'worker_gone'
  | 'follow_up'
  | 'model_unavailable'
  | 'capacity'
  // A run continues the conversation of an earlier attempt that was lost (run/progress.ts).
  | 'resumed';

/** What each type of event carries. */
export interface EventData {
  /** The job's status changed (created, a follow-up, completed, failed, archived). */
  status: { status: JobStatus; phase?: JobPhase; prLink?: string | null; error?: Plain<JobError> };
  /** The run moved to a phase, or waits in one (`reason`, and when it tries again). */
  phase: { phase: JobPhase; reason?: PhaseReason; attempt?: number; message?: string; retryAt?: string };
  /** A prompt of the user's or the agent's text. */
  message: { role: 'user' | 'assistant'; text: string };
  /** A tool the agent called; long strings of its input are cut (agent/report.ts). */
  tool_call: { tool: string; input: unknown };
  /** A tool's outcome, as its first line. */
  tool_result: { tool: string; ok: boolean; summary: string };
  /** The agent's whole plan after an `update_plan`. */
  plan: { items: PlanEventItem[] };
  /**
   * The project's environment before the agent: its setup command ran on the base branch
   * (`built`), or the cached environment for the same setup inputs and command was laid in
   * (`reused`), or the command failed, or it was not run because a commit of the service's changed
   * a setup input that no person has accepted yet (`held`, push mode).
   */
  setup: {
    status: 'built' | 'reused' | 'failed' | 'held';
    command: string;
    /** The cache key: a hash of the command and the setup inputs of the base branch. */
    key: string;
    message: string;
    /** The tail of its output, redacted ('' when reused). */
    output: string;
    durationMs: number;
  };
  /** A check run, and who asked for it (the agent's tool, or the worker in repair round `round`). */
  check: Plain<CheckRun & CheckRequest>;
  /**
   * A commit the run made; `unfinished` when it kept work of a run that hit its cost limit;
   * `merge` when it merged the base into the branch before a follow-up (`files`: those that
   * conflicted, left with markers for the agent), or, with `base` the branch itself, the commits
   * someone else pushed to the branch while the run worked.
   */
  commit: {
    sha: string;
    files: string[];
    branch: string;
    unfinished?: boolean;
    merge?: { base: string; conflicts: string[] };
  };
  /**
   * The pull request opened, or (with `action`) closed after its job was archived, or given or
   * rid of the label of failed checks (`label`), or a host that refused to (`label_failed`).
   */
  pull_request:
    | { url: string; number: number }
    | { action: 'closed' | 'close_failed'; url: string; message: string }
    | { action: 'labelled' | 'unlabelled' | 'label_failed'; url: string; label: string; message: string };
  /** The run's running totals after a step. */
  usage: Plain<RunUsage>;
  /** The conversation was compacted to stay inside the model's window. */
  context: {
    reason: 'near_window' | 'overflow';
    replacedResults: number;
    tokensBefore: number;
    tokensAfter: number;
    windowTokens: number;
  };
  /** Why the job failed. */
  error: Plain<JobError>;
}

/** Who asked for a check run: the agent's `run_checks`, or the worker before publishing (its repair `round`). */
export type CheckRequest = { by: 'agent' } | { by: 'worker'; round: number };

/** An interface as a plain object type, which the API's schema (any JSON object) accepts. */
type Plain<Type> = { [Key in keyof Type]: Type[Key] };

/** One line of an agent's plan as its event carries it. */
export interface PlanEventItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** An event before it is stored: its type and what it carries. */
export type NewEvent<Type extends EventType = EventType> = {
  [Key in Type]: { type: Key; data: EventData[Key] };
}[Type];

/** One entry of a job's activity. `seq` rises by one per job, so `after=<seq>` resumes exactly. */
export type JobEvent<Type extends EventType = EventType> = {
  [Key in Type]: { seq: number; type: Key; at: string; data: EventData[Key] };
}[Type];
