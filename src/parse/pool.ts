/**
 * A small pool of worker threads (piscina) for the parsers that read what a model or a repository
 * wrote: the checks' parsers and the dashboard's Markdown rendering. Markdown, MDX and YAML parsers slow down super-linearly on some inputs (deeply nested
 * `>`, bracket and backtick ladders); run on the event loop, such a file froze the whole service. Here
 * each file has a time budget counted from when a worker starts on it; past it the worker thread is
 * stopped (piscina's per-task `signal`) and the file is reported as too slow to parse.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ParseResults, ParseTask, PostedTask } from './worker.js';

/** How long parsing may take. */
export interface ParseBudget {
  /** Per file, from when a worker starts on it. */
  fileMs: number;
  /** Aborted when the whole check run's time is up. */
  run: AbortSignal;
}

/** Defaults of a check run's budgets, generous: an ordinary page parses in milliseconds. */
export const PARSE_FILE_MS = 5_000;
export const PARSE_RUN_MS = 60_000;

/** A parse's answer, or the message for the agent when the file could not be parsed in budget. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

let pool: Piscina | null = null;

/** Parses one file in the pool; never throws for what the file holds. */
export async function parseOffThread<Kind extends ParseTask['kind']>(
  task: Extract<ParseTask, { kind: Kind }>,
  budget: ParseBudget,
): Promise<Parsed<ParseResults[Kind]>> {
  if (budget.run.aborted) return { ok: false, message: outOfTime(task.path) };
  pool ??= new Piscina({
    filename: workerFile(),
    // One or two threads: parsing is a small part of a job, and the machine's cores serve the
    // event loop, the database and the project's own check commands too.
    minThreads: 0,
    maxThreads: 2,
    idleTimeout: 30_000,
    // A worker that allocates without end is stopped (and its file reported) before the process is.
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  const { port1, port2 } = new MessageChannel();
  const slow = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  port1.once('message', () => {
    timer = setTimeout(() => slow.abort(), budget.fileMs);
  });
  const posted: PostedTask = { ...task, started: port2 };
  try {
    const value = await pool.run(posted, {
      signal: AbortSignal.any([slow.signal, budget.run]),
      transferList: [port2],
    });
    return { ok: true, value: value as ParseResults[Kind] };
  } catch (error) {
    if (slow.signal.aborted)
      return {
        ok: false,
        message: `${task.path} is too slow to parse (over ${budget.fileMs / 1000} s): simplify the nesting (block quotes, lists, brackets, backtick runs).`,
      };
    if (budget.run.aborted) return { ok: false, message: outOfTime(task.path) };
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      return { ok: false, message: `${task.path} takes too much memory to parse: simplify or split it.` };
    throw error;
  } finally {
    clearTimeout(timer);
    port1.close();
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
