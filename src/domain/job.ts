import { AppError } from './errors.js';

export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_PHASES = ['queued', 'preparing', 'running', 'publishing'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

/** Why a status changes. Each transition in the table below names the events that may cause it. */
export type JobEvent = 'finish' | 'fail' | 'archive' | 'follow_up';

/**
 * The job state machine of DESIGN section 3, as data. A transition that is not listed is refused
 * with a typed error; nothing is ever silently ignored. (Archiving an archived job is not a
 * transition at all: the API answers with the job unchanged, see `archiveOutcome`.)
 */
const TRANSITIONS: Record<JobStatus, Partial<Record<JobEvent, JobStatus>>> = {
  active: { finish: 'completed', fail: 'failed', archive: 'archived', follow_up: 'active' },
  completed: { archive: 'archived', follow_up: 'active' },
  failed: { archive: 'archived', follow_up: 'active' },
  archived: {},
};

/** Returns the status `event` leads to from `from`, or throws `AppError` when it is not allowed. */
export function transition(from: JobStatus, event: JobEvent): JobStatus {
  const to = TRANSITIONS[from][event];
  if (to) return to;
  if (from === 'archived') {
    throw new AppError('job_archived', 'The job is archived; archived jobs are final.');
  }
  throw new AppError('invalid_transition', `A job that is ${from} cannot ${event.replace('_', ' ')}.`);
}

export function canTransition(from: JobStatus, event: JobEvent): boolean {
  return TRANSITIONS[from][event] !== undefined;
}

/** States in which clients stop polling. */
export const isTerminal = (status: JobStatus): boolean => status !== 'active';

export interface JobError {
  code: string;
  message: string;
}

export interface JobUsage {
  inputTokens: number;
  outputTokens: number;
  steps: number;
}

/** The job as the API shows it (DESIGN section 3): every field present, `null` where it does not apply. */
export interface Job {
  id: string;
  status: JobStatus;
  source: { repository: string; ref: string };
  model: string | null;
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
  draft: boolean;
}

/** The branch a job works on: `agentjobs/<short id>-<slug of the prompt>`, stable for the job's life. */
export function jobBranch(jobId: string, prompt: string): string {
  const slug = prompt
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const short = jobId.slice(-8).toLowerCase();
  return slug ? `agentjobs/${short}-${slug}` : `agentjobs/${short}`;
}
