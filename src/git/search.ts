/**
 * Text search for the workspace: `git grep` over the committed tree for files the agent has not
 * touched, and over an index of its blobs for the files it wrote. The query is untrusted, so it is
 * only ever run by git, in a process of its own that a timeout ends, never by a JavaScript RegExp
 * on the event loop. Results are capped: a model gains nothing from ten thousand matches, and the
 * output of a huge repository must stay bounded.
 */

import { WorkspaceError } from './paths.js';
import { GitError, runGit } from './run.js';
import { type WrittenFile, withScratchIndex } from './worktree.js';

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
/**
 * Bound on one grep. PCRE's own match limit stops most runaway patterns at once; this ends the
 * rest (POSIX regexes have no such limit) while leaving a large repository time to be searched.
 */
export const GREP_TIMEOUT_MS = 20_000;

/** Perl regexes are closer to what a model writes (`\d`, `\s`) than POSIX ERE; used when git has them. */
let perlRegex: boolean | undefined;

/** What `grepTree` searches and where. */
export interface GrepOptions {
  /** Worktree to run in. */
  cwd: string;
  /** Commit to search (a sha, so output prefixes are predictable); null for the index (`--cached`). */
  commit: string | null;
  /** Added to git's environment, e.g. `GIT_INDEX_FILE` for an index of the agent's files. */
  env?: Record<string, string>;
  query: string;
  regex: boolean;
  /** Repository-relative folder or file; '' for everything. */
  path: string;
  limit: number;
  /** Paths to leave out (the agent's changes, searched separately). */
  skip: (path: string) => boolean;
}

/** What `searchWorkspace` searches: a folder of the head commit, and the agent's own files. */
export interface WorkspaceSearch {
  /** The workspace's worktree. */
  cwd: string;
  query: string;
  regex: boolean;
  /** Repository-relative folder or file; '' for everything. */
  path: string;
  limit: number;
  /** The commit to search, or null when `path` is not in it (a folder only the agent made). */
  head: string | null;
  /** The agent's files, searched in a scratch index of their blobs instead of the commit. */
  written: ReadonlyMap<string, WrittenFile>;
  /** Committed files the agent deleted, left out. */
  deleted: ReadonlySet<string>;
}

/**
 * Lines matching the query in the workspace as the agent sees it, in path then line order and
 * capped at `limit`: the head commit for files the agent left alone, its blobs for its own.
 */
export async function searchWorkspace(search: WorkspaceSearch): Promise<SearchResult> {
  const { written, deleted, limit } = search;
  const grep = { cwd: search.cwd, query: search.query, regex: search.regex, path: search.path, limit };
  let found: SearchResult = { matches: [], truncated: false };
  if (search.head !== null) {
    const skip = (file: string) => written.has(file) || deleted.has(file);
    found = await grepTree({ ...grep, commit: search.head, skip });
  }
  const own = new Map([...written].filter(([file]) => isUnder(file, search.path)));
  if (own.size > 0) {
    const ownFound = await withScratchIndex(search.cwd, own, (env) =>
      grepTree({ ...grep, commit: null, env, skip: () => false }),
    );
    found = {
      matches: [...found.matches, ...ownFound.matches],
      truncated: found.truncated || ownFound.truncated,
    };
  }
  const matches = found.matches.sort(compareMatches);
  return { matches: matches.slice(0, limit), truncated: found.truncated || matches.length > limit };
}

/** True when `file` is `folder` or below it; every file is under '' (the root). */
export function isUnder(file: string, folder: string): boolean {
  return folder === '' || file === folder || file.startsWith(`${folder}/`);
}

/** `git grep -n -I` in `commit` or the index, without the `<commit>:` prefix git puts on each path. */
export async function grepTree(options: GrepOptions): Promise<SearchResult> {
  if (options.regex && perlRegex === undefined) perlRegex = await supportsPerl(options.cwd, options.commit);
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
    options.commit ?? '--cached',
    '--',
  ];
  if (options.path) args.push(options.path);
  let stdout: Buffer;
  let truncated: boolean;
  try {
    ({ stdout, truncated } = await runGit(args, {
      cwd: options.cwd,
      maxStdoutBytes: MAX_GREP_BYTES,
      timeoutMs: GREP_TIMEOUT_MS,
      ...(options.env ? { env: options.env } : {}),
    }));
  } catch (error) {
    // Exit 1 with nothing on stderr is grep's "no match".
    if (error instanceof GitError && error.exitCode === 1 && error.stderr === '')
      return { matches: [], truncated: false };
    const tooSlow =
      error instanceof GitError &&
      (error.reason === 'timeout' || (options.regex && /match limit|limit exceeded/i.test(error.stderr)));
    if (tooSlow) {
      throw new WorkspaceError(
        'invalid_argument',
        options.regex
          ? 'The regular expression takes too long to match (it backtracks too much on some line); the search was stopped. Use a simpler expression, e.g. without nested or overlapping repetition, or a plain-text query.'
          : 'The search took too long and was stopped; search a narrower path.',
      );
    }
    if (error instanceof GitError && error.exitCode === 128 && options.regex) {
      throw new WorkspaceError(
        'invalid_argument',
        `The regular expression is not valid: ${error.stderr.replace(/^fatal: /, '')}`,
      );
    }
    throw error;
  }
  const prefix = options.commit === null ? '' : `${options.commit}:`;
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

/** Orders by path then line, the order `git grep` uses. */
export function compareMatches(a: SearchMatch, b: SearchMatch): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
}

function clip(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}

async function supportsPerl(cwd: string, commit: string | null): Promise<boolean> {
  // Exit 1 (no match) means -P works; 128 means git was built without PCRE. With a commit, so that
  // the probe also works in a bare repository (a context repository), which has no worktree to grep.
  const where = commit ? [commit, '--'] : ['--'];
  return runGit(['grep', '-q', '-P', '-e', 'x', ...where, 'agentjobs-no-such-path'], { cwd }).then(
    () => true,
    (error) => error instanceof GitError && error.exitCode === 1,
  );
}
