/**
 * A small pool of worker threads (piscina) for the parsers that read what a model or a repository
 * wrote: the checks' parsers, the dashboard's Markdown rendering, glob matching. Markdown, MDX and
 * YAML parsers slow down super-linearly on some inputs (deeply nested `>`, bracket and backtick
 * ladders), and so do glob patterns; run on the event loop, such a file froze the service. Here
 * each file has a time budget counted from when a worker starts on it; past it the worker thread is
 * stopped (piscina's per-task `signal`) and the file is reported as too slow to parse. The threads
 * are shared fairly between runs (fair-share.ts), and a run is charged only the time its own files
 * spend in a thread, never the time they wait for one behind other runs' files.
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { FairShare } from './fair-share.js';
import type { ParseResults, ParseTask, PostedTask } from './worker.js';

/**
 * One run's use of the pool (a job's check run, a render): its place in the line for threads and
 * the parse time it may spend, counted while its files are in a thread. Cancelled by `signal`.
 */
export class ParseRun {
  private spentMs = 0;
  private readonly spent = new AbortController();
  /** Aborted when the run's time is spent or `signal` aborts. */
  readonly over: AbortSignal;

  constructor(
    readonly limitMs: number,
    signal?: AbortSignal,
  ) {
    this.over = signal ? AbortSignal.any([this.spent.signal, signal]) : this.spent.signal;
  }

  /** Parse time left. */
  get remainingMs(): number {
    return Math.max(0, this.limitMs - this.spentMs);
  }

  /** Charges time a file spent in a thread; the run is over when its time is spent. */
  charge(ms: number): void {
    this.spentMs += ms;
    if (this.spentMs >= this.limitMs) this.spent.abort();
  }
}

/** How long parsing may take. */
export interface ParseBudget {
  /** Per file, from when a worker starts on it. */
  fileMs: number;
  /** The run the file belongs to, which its time is charged to. */
  run: ParseRun;
}

/** Defaults of a check run's budgets, generous: an ordinary page parses in milliseconds. */
export const PARSE_FILE_MS = 5_000;
export const PARSE_RUN_MS = 60_000;

/** A parse's answer, or the message for the agent when the file could not be parsed in budget. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * One or two threads: parsing is a small part of a job, and the machine's cores serve the event
 * loop, the database and the project's own check commands too.
 */
const THREADS = 2;
let pool: Piscina | null = null;
const share = new FairShare(THREADS);

/** Parses one file in the pool; never throws for what the file holds. */
export async function parseOffThread<Kind extends ParseTask['kind']>(
  task: Extract<ParseTask, { kind: Kind }>,
  budget: ParseBudget,
): Promise<Parsed<ParseResults[Kind]>> {
  const { run } = budget;
  const giveBack = await share.take(run, run.over);
  if (!giveBack) return { ok: false, message: outOfTime(task.path) };
  pool ??= new Piscina({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: THREADS,
    idleTimeout: 30_000,
    // A worker that allocates without end is stopped (and its file reported) before the process is.
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
    // `path.matchesGlob` (glob.ts) warns that it is experimental, once in every new thread.
    execArgv: [...process.execArgv, '--disable-warning=ExperimentalWarning'],
  });
  const { port1, port2 } = new MessageChannel();
  const slow = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let startedAt: number | null = null;
  port1.once('message', () => {
    startedAt = performance.now();
    // The file's own budget, or what is left of the run's when that is less.
    const left = run.remainingMs;
    timer =
      left < budget.fileMs
        ? setTimeout(() => run.charge(performance.now() - (startedAt as number)), left)
        : setTimeout(() => slow.abort(), budget.fileMs);
  });
  const posted: PostedTask = { ...task, started: port2 };
  try {
    const value = await pool.run(posted, {
      signal: AbortSignal.any([slow.signal, run.over]),
      transferList: [port2],
    });
    return { ok: true, value: value as ParseResults[Kind] };
  } catch (error) {
    if (slow.signal.aborted)
      return {
        ok: false,
        message: `${task.path} is too slow to parse (over ${budget.fileMs / 1000} s): simplify the nesting (block quotes, lists, brackets, backtick runs).`,
      };
    if (run.over.aborted) return { ok: false, message: outOfTime(task.path) };
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      return { ok: false, message: `${task.path} takes too much memory to parse: simplify or split it.` };
    throw error;
  } finally {
    clearTimeout(timer);
    port1.close();
    if (startedAt !== null && !run.over.aborted) run.charge(performance.now() - startedAt);
    giveBack();
  }
}

const outOfTime = (path: string) =>
  `${path} was not checked: the check run spent its time on files slower to parse. Simplify those first.`;

/** Stops the pool's threads (the server's close path); a later parse starts a new pool. */
export async function closeParsePool(): Promise<void> {
  const closing = pool;
  pool = null;
  await closing?.destroy();
}

/**
 * The worker's file. A worker thread loads plain JavaScript with Node's own loader: the TypeScript
 * transform that vitest (or tsx) applies to this module does not reach it. Built (dist/), the
 * worker is the file beside this one; run from the sources (src/, in tests), it is the same file
 * built into dist/, which `npm test` builds before running vitest. A missing build says so rather
 * than failing in the thread.
 */
function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts')
    ? new URL('../../dist/parse/worker.js', here)
    : new URL('./worker.js', here);
  const path = fileURLToPath(url);
  if (!existsSync(path)) throw new Error(`The parse worker ${path} is missing: run \`npm run build\` first.`);
  return path;
}
