/**
 * How many runs a worker process can hold at once, whatever AGENTJOBS_WORKER_CONCURRENCY asks for.
 * A run that mostly waits on a model costs little, but it holds file descriptors (its git children's
 * pipes, the model's socket, files of its worktree) and, at moments, a few processes; past the
 * process's limits a run would fail on EMFILE or EAGAIN halfway. So the worker claims no more than
 * its limits allow, and the jobs beyond stay queued (worker.ts tells them why).
 */
import { readFileSync } from 'node:fs';

/** Descriptors one run may hold at its busiest: pipes of two git children, sockets, worktree files. */
export const DESCRIPTORS_PER_RUN = 16;
/** Processes one run may have alive at once (a push starts a few). */
export const PROCESSES_PER_RUN = 4;
/** Kept for everything else of the process: the database, the HTTP server and its clients, logs. */
const RESERVED_DESCRIPTORS = 256;
const RESERVED_PROCESSES = 64;

/** The soft limits of this process that bound its runs; null where the platform does not tell. */
export interface ProcessLimits {
  openFiles: number | null;
  processes: number | null;
}

/** Reads `/proc/self/limits` (Linux); elsewhere nothing is known and nothing is capped. */
export function processLimits(text?: string): ProcessLimits {
  let limits = text;
  if (limits === undefined) {
    try {
      limits = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return { openFiles: null, processes: null };
    }
  }
  const soft = (name: string) => {
    const found = new RegExp(`^${name}\\s+(\\d+|unlimited)`, 'm').exec(limits as string);
    return found && found[1] !== 'unlimited' ? Number(found[1]) : null;
  };
  return { openFiles: soft('Max open files'), processes: soft('Max processes') };
}

/** The runs a worker can hold: `configured`, or less when the process's limits allow less (at least 1). */
export function runCapacity(configured: number, limits: ProcessLimits = processLimits()): number {
  let capacity = configured;
  if (limits.openFiles !== null)
    capacity = Math.min(
      capacity,
      Math.floor((limits.openFiles - RESERVED_DESCRIPTORS) / DESCRIPTORS_PER_RUN),
    );
  // The process limit counts every process of the user, not only ours: a ceiling, not a budget.
  if (limits.processes !== null)
    capacity = Math.min(capacity, Math.floor((limits.processes - RESERVED_PROCESSES) / PROCESSES_PER_RUN));
  return Math.max(1, capacity);
}
