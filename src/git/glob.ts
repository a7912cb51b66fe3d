/**
 * Glob filtering for `list_files` and for automations' path filters. The pattern comes from a model
 * or a user, and glob matching is not bounded (`parse/glob.ts`), so matching runs in the parse pool
 * (`parse/pool.ts`) with a time limit and the pool's memory limit: the event loop only waits for
 * an answer, and a runaway pattern ends as a tool error the model can read instead of freezing the
 * service.
 */
import { ParseRun, parseOffThread } from '../parse/pool.js';
import { WorkspaceError } from './paths.js';

/** Time one pattern may take over the whole listing, generous for a large repository. */
export const GLOB_TIMEOUT_MS = 10_000;
/** Longer patterns are refused before any work: no listing needs one. */
export const MAX_PATTERN_LENGTH = 1_000;

/**
 * The files (repository paths) that match the glob `pattern`, where `folder` is the folder being
 * listed ('' for the root).
 *
 * @throws WorkspaceError ('invalid_argument') for a pattern that is too long, too slow or too big to
 * match.
 */
export async function filterByPattern(files: string[], folder: string, pattern: string): Promise<string[]> {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new WorkspaceError(
      'invalid_argument',
      `The pattern is ${pattern.length} characters long; patterns may have at most ${MAX_PATTERN_LENGTH}.`,
    );
  }
  let matched: Awaited<ReturnType<typeof parseOffThread<'glob'>>>;
  try {
    matched = await parseOffThread(
      { kind: 'glob', path: 'the pattern', files, folder, pattern },
      { fileMs: GLOB_TIMEOUT_MS, run: new ParseRun(GLOB_TIMEOUT_MS) },
    );
  } catch (error) {
    throw new WorkspaceError('invalid_argument', `The pattern cannot be used: ${(error as Error).message}`);
  }
  if (matched.ok) return matched.value;
  // Too slow, or too big for the thread's memory: either way the pattern, not the listing, is at fault.
  throw new WorkspaceError(
    'invalid_argument',
    `The pattern "${pattern.slice(0, 100)}" is too complex to match (large brace expansions such as {1..40000} or many stars); it was stopped. Use a simpler pattern, e.g. "*.md" or "docs/**/*.mdx".`,
  );
}
