/**
 * Glob matching of repository paths, run in the parse pool (worker.ts): a pattern comes from a
 * model or an automation, and matching is not bounded (brace ranges expand, `{1..40000}` is forty
 * thousand patterns rebuilt for every file; stars compile to backtracking regular expressions).
 */
import { posix } from 'node:path';

/**
 * The files that match `pattern`. A pattern without `/` matches the file name (`*.md`); one with
 * `/` matches the path from the repository root or from the listed `folder` (`guide/**\/*.md`).
 */
export function matchGlob(files: readonly string[], folder: string, pattern: string): string[] {
  const matches = (path: string) => posix.matchesGlob(path, pattern);
  const prefix = folder === '' ? '' : `${folder}/`;
  return files.filter((file) => {
    if (!pattern.includes('/')) return matches(posix.basename(file));
    return matches(file) || (prefix !== '' && file.startsWith(prefix) && matches(file.slice(prefix.length)));
  });
}
