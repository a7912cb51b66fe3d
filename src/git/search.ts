/**
 * Text search for the workspace: `git grep` over the committed tree for files the agent has not
 * touched, and a plain JavaScript search over the files it wrote. Results are capped: a model
 * gains nothing from ten thousand matches, and the output of a huge repository must stay bounded.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isBinary, WorkspaceError } from './paths.js';
import { GitError, runGit } from './run.js';

/** One matching line. `line` counts from 1. */
export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

/** Matches in path then line order; `truncated` when there were more than the limit. */
export interface SearchResult {
  matches: SearchMatch[];
  truncated: boolean;
}

/** Long lines (minified files) are cut: the model needs the place, not the whole line. */
const MAX_LINE_CHARS = 300;
/** Bound on grep's output, however many lines match. */
const MAX_GREP_BYTES = 4 * 1024 * 1024;

/** Perl regexes are closer to what a model writes (`\d`, `\s`) than POSIX ERE; used when git has them. */
let perlRegex: boolean | undefined;

/** What `grepTree` searches and where. */
export interface GrepOptions {
  /** Worktree to run in. */
  cwd: string;
  /** Commit to search (a sha, so output prefixes are predictable). */
  commit: string;
  query: string;
  regex: boolean;
  /** Repository-relative folder or file; '' for everything. */
  path: string;
  limit: number;
  /** Paths to leave out (the agent's changes, searched separately). */
  skip: (path: string) => boolean;
}

/** `git grep -n -I` in `commit`, without the `<commit>:` prefix git puts on each path. */
export async function grepTree(options: GrepOptions): Promise<SearchResult> {
  if (options.regex && perlRegex === undefined) perlRegex = await supportsPerl(options.cwd);
  const useRegex = options.regex ? (perlRegex ? '-P' : '-E') : '--fixed-strings';
  const args = [
    '--literal-pathspecs',
    'grep',
    '-n',
    '-I',
    '-z',
    '--no-color',
    useRegex,
    '-e',
    options.query,
    options.commit,
    '--',
  ];
  if (options.path) args.push(options.path);
  let stdout: Buffer;
  let truncated: boolean;
  try {
    ({ stdout, truncated } = await runGit(args, { cwd: options.cwd, maxStdoutBytes: MAX_GREP_BYTES }));
  } catch (error) {
    // Exit 1 with nothing on stderr is grep's "no match".
    if (error instanceof GitError && error.exitCode === 1 && error.stderr === '')
      return { matches: [], truncated: false };
    if (error instanceof GitError && error.exitCode === 128 && options.regex) {
      throw new WorkspaceError(
        'invalid_argument',
        `The regular expression is not valid: ${error.stderr.replace(/^fatal: /, '')}`,
      );
    }
    throw error;
  }
  const prefix = `${options.commit}:`;
  const matches: SearchMatch[] = [];
  const lines = stdout.toString('utf8').split('\n');
  // A cut-off last line is incomplete.
  if (truncated) lines.pop();
  for (const record of lines) {
    // With -z: `<commit>:<path>\0<line>\0<text>`.
    const first = record.indexOf('\0');
    const second = record.indexOf('\0', first + 1);
    if (first < 0 || second < 0) continue;
    const path = record.slice(0, first).slice(prefix.length);
    if (options.skip(path)) continue;
    if (matches.length === options.limit) return { matches, truncated: true };
    matches.push({
      path,
      line: Number(record.slice(first + 1, second)),
      text: clip(record.slice(second + 1)),
    });
  }
  return { matches, truncated };
}

/** A line matcher with the same meaning as the grep, for the agent's own files. */
export function lineMatcher(query: string, regex: boolean): (line: string) => boolean {
  if (!regex) return (line) => line.includes(query);
  let pattern: RegExp;
  try {
    pattern = new RegExp(query);
  } catch (error) {
    throw new WorkspaceError(
      'invalid_argument',
      `The regular expression is not valid: ${(error as Error).message}`,
    );
  }
  return (line) => pattern.test(line);
}

/** Matching lines of one file's text. */
export function searchText(path: string, text: string, matches: (line: string) => boolean): SearchMatch[] {
  const found: SearchMatch[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] as string).replace(/\r$/, '');
    if (matches(line)) found.push({ path, line: index + 1, text: clip(line) });
  }
  return found;
}

/** Searches the agent's files on disk (under `dir`), skipping binary and oversized ones as grep -I would. */
export async function searchFiles(
  dir: string,
  files: string[],
  matches: (line: string) => boolean,
  maxBytes: number,
): Promise<SearchMatch[]> {
  const found: SearchMatch[] = [];
  for (const file of files) {
    const content = await readFile(join(dir, file));
    if (content.length <= maxBytes && !isBinary(content))
      found.push(...searchText(file, content.toString('utf8'), matches));
  }
  return found;
}

/** Orders by path then line, the order `git grep` uses. */
export function compareMatches(a: SearchMatch, b: SearchMatch): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
}

function clip(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}

async function supportsPerl(cwd: string): Promise<boolean> {
  // Exit 1 (no match) means -P works; 128 means git was built without PCRE.
  return runGit(['grep', '-q', '-P', '-e', 'x', '--', 'agentjobs-no-such-path'], { cwd }).then(
    () => true,
    (error) => error instanceof GitError && error.exitCode === 1,
  );
}
