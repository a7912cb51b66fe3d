/**
 * The one object a run's phases share (run.ts). It starts with what every phase needs; each phase
 * adds what a later one reads (`Object.assign`, so the types say which phase has run) and nothing
 * else is shared between them. When a phase fails, the failure reads what is there: the
 * workspace to remove, the work to keep, the messages handed to the agent.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { redactorFor } from '../../config/config.js';
import type { Job } from '../../domain/job.js';
import type { Project } from '../../domain/project.js';
import type { Redactor } from '../../domain/redact.js';
import type { Workspace } from '../../git/workspace.js';
import { removeWorktree } from '../../git/worktree.js';
import type { CodeHost } from '../../hosts/types.js';
import type { ClaimedJob, Lease } from '../../store/queue/index.js';
import type { RunControl, RunDependencies } from '../run-context.js';
import { liveUsage } from '../usage.js';

/** A run from its claim on; the fields below the line are filled in as it goes. */
export interface RunState {
  readonly deps: RunDependencies;
  readonly control: RunControl;
  /** The job as claimed; prepare moves its `source.ref` when a follow-up starts a new branch. */
  job: Job;
  readonly lease: Lease;
  readonly redact: Redactor;
  /** The run's event sink, which records usage on the job step by step. */
  readonly usage: ReturnType<typeof liveUsage>;
  readonly worktreeDir: string;
  /** When the run began: the mirror must be at least as new as upstream was then (git/mirror.ts). */
  readonly began: number;
  /** The project's mirror, once prepare named it. */
  mirrorPath: string | null;
  /** The job's workspace while it is open; null before prepare made it and after it is removed. */
  workspace: Workspace | null;
  /** Keeps the workspace's changes on the branch when the run hits its cost limit; set by prepare. */
  keepWork: (() => Promise<string | null>) | null;
  /** The newest message handed to the agent: what a saved conversation covers. */
  deliveredThrough: string | null;
}

/** A run whose project and code host are known (prepare.ts `locate`). */
export type LocatedRun = RunState & { project: Project; host: CodeHost };

/** The state of a run of `claimed` that has not begun any phase. */
export function runState(deps: RunDependencies, claimed: ClaimedJob, control: RunControl): RunState {
  const { job, attempt } = claimed;
  const lease: Lease = { jobId: job.id, attempt, owner: deps.workerId };
  return {
    deps,
    control,
    job,
    lease,
    redact: redactorFor(deps.config),
    usage: liveUsage(deps.store, lease),
    worktreeDir: join(deps.config.dataDir, 'worktrees', job.id),
    began: performance.now(),
    mirrorPath: null,
    workspace: null,
    keepWork: null,
    deliveredThrough: null,
  };
}

/** Removes the run's workspace (or a worktree left half made); safe to call more than once. */
export async function closeWorkspace(run: RunState): Promise<void> {
  const open = run.workspace;
  run.workspace = null;
  try {
    if (open) await open.close();
    else if (run.mirrorPath && (await exists(run.worktreeDir)))
      await removeWorktree(run.mirrorPath, run.worktreeDir);
  } catch (error) {
    run.control.log.warn({ err: error }, 'could not remove the workspace');
  }
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
