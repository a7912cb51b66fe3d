/**
 * Glob filtering for `list_files`. The pattern comes from the model, and glob matching is not
 * bounded: brace ranges expand (`{1..40000}` is forty thousand patterns, rebuilt for every file)
 * and stars compile to backtracking regular expressions. So matching runs in a worker thread with
 * a time and a memory limit; the event loop only waits for a message, and a runaway pattern ends
 * as a tool error the model can read instead of freezing the service.
 */
import { Worker } from 'node:worker_threads';
import { WorkspaceError } from './paths.js';

/** Time one pattern may take over the whole listing, generous for a large repository. */
export const GLOB_TIMEOUT_MS = 10_000;
/** Longer patterns are refused before any work: no listing needs one. */
export const MAX_PATTERN_LENGTH = 1_000;
/** Heap of the matching thread; a brace expansion that outgrows it ends the thread, not the service. */
const WORKER_HEAP_MB = 128;

/**
 * The matcher, as the source of a worker (given as text so that it runs the same from `src/` under
 * the tests and from `dist/`). A pattern without `/` matches the file name (`*.md`); one with `/`
 * matches the path from the repository root or from the listed folder (`guide/**\/*.md`), using
 * `path.matchesGlob` (Node 20.17+; the flag silences its experimental warning in each thread).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { posix } = require('node:path');
const { files, folder, pattern } = workerData;
const matches = (path) => posix.matchesGlob(path, pattern);
const prefix = folder === '' ? '' : folder + '/';
const kept = files.filter((file) => {
  if (!pattern.includes('/')) return matches(posix.basename(file));
  return matches(file) || (prefix !== '' && file.startsWith(prefix) && matches(file.slice(prefix.length)));
});
parentPort.postMessage(kept);
`;

/**
 * The files (repository paths) that match the glob `pattern`, where `folder` is the folder being
 * listed ('' for the root).
 *
 * @throws WorkspaceError ('invalid_argument') for a pattern that is too long, too slow or too big to
 * match; ('unsupported') on a Node.js without `path.matchesGlob`.
 */
export function filterByPattern(files: string[], folder: string, pattern: string): Promise<string[]> {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return Promise.reject(
      new WorkspaceError(
        'invalid_argument',
        `The pattern is ${pattern.length} characters long; patterns may have at most ${MAX_PATTERN_LENGTH}.`,
      ),
    );
  }
  const tooComplex = new WorkspaceError(
    'invalid_argument',
    `The pattern "${pattern.slice(0, 100)}" is too complex to match (large brace expansions such as {1..40000} or many stars); it was stopped. Use a simpler pattern, e.g. "*.md" or "docs/**/*.mdx".`,
  );
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { files, folder, pattern },
      execArgv: ['--no-warnings'],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      finish();
    };
    const timer = setTimeout(() => settle(() => reject(tooComplex)), GLOB_TIMEOUT_MS);
    worker.on('message', (kept: string[]) => settle(() => resolve(kept)));
    worker.on('error', (error: Error & { code?: string }) =>
      settle(() => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') reject(tooComplex);
        else if (/matchesGlob is not a function/.test(error.message))
          reject(
            new WorkspaceError('unsupported', 'Glob patterns need Node.js 20.17 or later on the server.'),
          );
        else reject(new WorkspaceError('invalid_argument', `The pattern cannot be used: ${error.message}`));
      }),
    );
    worker.on('exit', () => settle(() => reject(tooComplex)));
  });
}
