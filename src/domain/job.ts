import transliterate from '@sindresorhus/transliterate';
import type { AutomationJobTrigger } from './automation.js';
import type { CheckRun } from './checks.js';
import type { ContextRepositoryRead } from './context-repository.js';
import { AppError, type JobFailureCode } from './errors.js';

export type { JobFailureCode };

export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_PHASES = ['queued', 'preparing', 'running', 'publishing'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

/**
 * What changes a job's status: a run that ends (`finish`, `fail`), a run that hands the job back to
 * the queue (`requeue`: a follow-up is waiting, or the lease expired), and the API's `archive` and
 * `follow_up`. Not an activity event of the job: those are what `job_events` records.
 */
export type JobTrigger = 'finish' | 'fail' | 'requeue' | 'archive' | 'follow_up';

/** One transition: the statuses a trigger may fire from, and the status it leads to. */
export interface JobTransition {
  readonly from: readonly JobStatus[];
  readonly to: JobStatus;
}

/**
 * The job state machine of docs/api.md, as data: the one place that says which status follows
 * which. The API's archive and follow-up ask `transition`; the queue's writes set `to` and fence
 * their statement with `from`. A transition that is not listed is refused with a typed error;
 * nothing is ever silently ignored. Archived is final.
 */
const TRANSITIONS: Readonly<Record<JobTrigger, JobTransition>> = {
  finish: { from: ['active'], to: 'completed' },
  fail: { from: ['active'], to: 'failed' },
  requeue: { from: ['active'], to: 'active' },
  archive: { from: ['active', 'completed', 'failed'], to: 'archived' },
  follow_up: { from: ['active', 'completed', 'failed'], to: 'active' },
};

/** The transition `trigger` makes, for a write that fences its statement with `from`. */
export function transitionOf(trigger: JobTrigger): JobTransition {
  return TRANSITIONS[trigger];
}

/** Returns the status `trigger` leads to from `from`, or throws `AppError` when it is not allowed. */
export function transition(from: JobStatus, trigger: JobTrigger): JobStatus {
  const { from: allowed, to } = TRANSITIONS[trigger];
  if (allowed.includes(from)) return to;
  if (from === 'archived') {
    throw new AppError('job_archived', 'The job is archived; archived jobs are final.');
  }
  throw new AppError('invalid_transition', `A job that is ${from} cannot ${trigger.replace('_', ' ')}.`);
}

export interface JobError {
  code: JobFailureCode;
  message: string;
}

/** A job's usage over all its runs (docs/api.md). */
export interface JobUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider read from its prompt cache; part of `inputTokens`. */
  cachedInputTokens: number;
  steps: number;
  /** USD; null when the model's price is unknown. */
  costUsd: number | null;
}

/**
 * What one run adds to its job's usage. The cache count and the cost may be left out (a run that
 * reported none); a cost of null adds nothing: an unknown price is not a price of zero.
 */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  steps: number;
  cachedInputTokens?: number;
  costUsd?: number | null;
}

/** A cost for people: `$0.0123` under a dollar (runs are often cents), `$12.34` above; null: `unknown`. */
export function formatUsd(costUsd: number | null): string {
  if (costUsd === null) return 'unknown';
  return costUsd < 1 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`;
}

/**
 * The model a job names when neither the request, its project nor the server's configuration
 * chose one (README, configuration): the hosted API's schema has no job without a model. A server
 * with no provider configured still names it, and the job fails at once with `model_unavailable`.
 */
export const DEFAULT_MODEL_ID = 'anthropic:claude-sonnet-4-5';

/** The job as the API shows it (docs/api.md): every field present, `null` where it does not apply. */
export interface Job {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  /** Never null, as in the hosted API's schema: with nothing configured, `DEFAULT_MODEL_ID`. */
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
  projectId: string;
  prompt: string;
  baseRef: string;
  phase: JobPhase | null;
  title: string | null;
  summary: string | null;
  error: JobError | null;
  updatedAt: string;
  completedAt: string | null;
  usage: JobUsage;
  filesChanged: number;
  /** The latest run of the job's checks; null before any ran. */
  checks: CheckRun | null;
  draft: boolean;
  /** The context repositories the latest run read, at the commits it read; [] when none. */
  contextRepositories: ContextRepositoryRead[];
  /** What started the job when an automation made it; null for jobs made through the API. */
  trigger: AutomationJobTrigger | null;
}

/**
 * The branch a job works on: `agentjobs/<short id>-<slug of the prompt>`, stable for the job's life.
 * The prompt is transliterated to Latin first (Cyrillic, Greek, accents, Arabic…), so the slug keeps
 * its meaning; a script with no transliteration (CJK, Hebrew) or emoji leaves only what was Latin in
 * it, and with nothing left the branch is the id alone.
 */
export function jobBranch(jobId: string, prompt: string): string {
  const slug = transliterate(prompt)
    // Compatibility forms (ligatures, circled digits) to their plain letters.
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const short = jobId.slice(-8).toLowerCase();
  return slug ? `agentjobs/${short}-${slug}` : `agentjobs/${short}`;
}

/**
 * The branch a follow-up starts when the job's pull request was merged or closed: the job's first
 * branch with `-2`, then `-3`…, counted from the branch it is on now (`current`), so a prompt that
 * ends in a number is never mistaken for a count.
 */
export function nextJobBranch(jobId: string, prompt: string, current: string): string {
  const first = jobBranch(jobId, prompt);
  const count = current.startsWith(`${first}-`) ? Number(current.slice(first.length + 1)) : Number.NaN;
  return `${first}-${Number.isInteger(count) && count >= 2 ? count + 1 : 2}`;
}
