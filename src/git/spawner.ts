/**
 * Where git processes start: a few worker threads (spawn-worker.ts), never the main thread. Node
 * starts a child process synchronously, and the thread that starts it waits until the child has
 * exec'd: a few milliseconds, far more on a busy machine. A job starts about fifteen git processes,
 * so with many jobs at once those waits, all on the one event loop, held up every other job's
 * step, database write and HTTP answer (docs/benchmarks.md). In these threads they overlap and
 * wait on their own loops.
 *
 * A thread holds the process open only while it runs something. A thread that dies fails what it
 * was running (as a command that could not start) and is replaced at the next command.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { GitExecOutcome, GitExecRequest } from './exec.js';
import type { SpawnMessage } from './spawn-worker.js';

/** Threads that start processes: enough for starts to overlap, few enough to cost little memory. */
const THREADS = 4;

interface Thread {
  worker: Worker;
  pending: Map<number, (outcome: GitExecOutcome) => void>;
}

const threads: (Thread | null)[] = Array.from({ length: THREADS }, () => null);
let nextId = 1;

/** Runs `request` in one of the threads (the one with the fewest commands in flight). */
export function execInThread(request: GitExecRequest, signal?: AbortSignal): Promise<GitExecOutcome> {
  const thread = leastBusy();
  const id = nextId++;
  return new Promise((resolve) => {
    const onAbort = () => thread.worker.postMessage({ id, abort: true } satisfies SpawnMessage);
    thread.pending.set(id, (outcome) => {
      signal?.removeEventListener('abort', onAbort);
      if (thread.pending.size === 0) thread.worker.unref();
      resolve(outcome);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    thread.worker.ref();
    thread.worker.postMessage({ id, request } satisfies SpawnMessage);
  });
}

function leastBusy(): Thread {
  let best: Thread | null = null;
  for (let index = 0; index < THREADS; index++) {
    const thread = threads[index] ?? startThread(index);
    if (!best || thread.pending.size < best.pending.size) best = thread;
  }
  return best as Thread;
}

function startThread(index: number): Thread {
  const worker = new Worker(workerFile());
  const thread: Thread = { worker, pending: new Map() };
  worker.unref();
  worker.on('message', ({ id, outcome }: { id: number; outcome: GitExecOutcome }) => {
    const settle = thread.pending.get(id);
    thread.pending.delete(id);
    settle?.(outcome);
  });
  const lost = () => {
    if (threads[index] === thread) threads[index] = null;
    const waiting = [...thread.pending.values()];
    thread.pending.clear();
    for (const settle of waiting) settle({ status: 'failed', reason: 'spawn', exitCode: null, stderr: '' });
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  threads[index] = thread;
  return thread;
}

/**
 * The thread's file. A worker thread loads plain JavaScript with Node's own loader: run from the
 * sources (src/, in tests), it is the same file built into dist/, as for the parse pool
 * (src/parse/pool.ts), which `npm test` builds before running vitest.
 */
function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts')
    ? new URL('../../dist/git/spawn-worker.js', here)
    : new URL('./spawn-worker.js', here);
  const path = fileURLToPath(url);
  if (!existsSync(path)) throw new Error(`The git spawner ${path} is missing: run \`npm run build\` first.`);
  return path;
}
