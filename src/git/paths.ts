/**
 * Path confinement for the agent's file tools. Every path a model sends passes through
 * `resolveRepoPath` before it reaches git or the disk, so the rest of `git/` only ever sees
 * normalized, repository-relative POSIX paths that cannot leave the repository or touch `.git`.
 *
 * Messages are written for the model: they say what was wrong and what a valid path looks like,
 * because a tool error is shown to the model so it can correct itself (DESIGN §5).
 */
import * as nodePath from 'node:path';
import { posix } from 'node:path';

/** Why a workspace operation was refused; lets the agent layer word or count errors without parsing. */
export type WorkspaceErrorCode =
  | 'invalid_path'
  | 'outside_repository'
  | 'not_found'
  | 'is_directory'
  | 'not_a_directory'
  | 'already_exists'
  | 'too_large'
  | 'unsupported'
  | 'invalid_argument'
  | 'closed';

/**
 * A refused workspace operation (file missing, too large, a folder where a file was expected, …).
 * The message is meant to be shown to the model as a tool error; it never fails the job by itself.
 */
export class WorkspaceError extends Error {
  override name = 'WorkspaceError';
  readonly code: WorkspaceErrorCode;

  constructor(code: WorkspaceErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  static notFound(path: string): WorkspaceError {
    return new WorkspaceError('not_found', `"${path}" does not exist.`);
  }

  static folder(path: string): WorkspaceError {
    return new WorkspaceError('is_directory', `"${path || '.'}" is a folder, not a file.`);
  }

  static tooLarge(path: string, size: number, maxBytes: number): WorkspaceError {
    return new WorkspaceError(
      'too_large',
      `"${path}" is ${size} bytes; files over ${maxBytes} bytes cannot be read or written by the agent.`,
    );
  }
}

/** A path the agent may not use: empty, absolute, escaping the root, under `.git`, or a symlink leading out. */
export class PathError extends WorkspaceError {
  override name = 'PathError';

  constructor(message: string, code: 'invalid_path' | 'outside_repository' = 'invalid_path') {
    super(code, message);
  }
}

/** Options of `resolveRepoPath`. */
export interface ResolveRepoPathOptions {
  /** Accept the repository root (`.`, `./`) and return `''` for it, e.g. for listing. Default false. */
  allowRoot?: boolean;
}

/**
 * Turns a path from the model into a normalized repository-relative POSIX path (`docs/a.md`).
 * Backslashes count as separators, so a Windows-style `..\\..\\x` is caught like `../../x`.
 *
 * @throws PathError for an empty path, NUL or line breaks, an absolute path (`/x`, `C:\x`), a `..`
 * that escapes the root, and `.git` (any case) as any component.
 */
export function resolveRepoPath(input: string, options: ResolveRepoPathOptions = {}): string {
  if (typeof input !== 'string' || input.length === 0) {
    throw new PathError(
      'The path is empty. Give a path relative to the repository root, e.g. "docs/index.md".',
    );
  }
  if (input.includes('\0'))
    throw new PathError('The path contains a NUL byte, which no file name can contain.');
  // Line breaks would break git's line-based batch protocols; no sensible file name has one.
  if (/[\r\n]/.test(input)) throw new PathError('The path contains a line break; file names here cannot.');

  const slashed = input.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new PathError(
      `"${input}" is an absolute path. Paths are relative to the repository root: write "docs/index.md", not "/docs/index.md".`,
    );
  }
  const normalized = posix.normalize(slashed).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new PathError(
      `"${input}" points outside the repository. Paths must stay inside the repository root.`,
      'outside_repository',
    );
  }
  if (normalized.split('/').some((part) => part.toLowerCase() === '.git')) {
    throw new PathError(
      `"${input}" is inside .git, git's own data, which cannot be read or changed. Use the repository's files.`,
    );
  }
  if (normalized === '.' || normalized === '') {
    if (options.allowRoot) return '';
    throw new PathError(`"${input}" is the repository root, a folder. Give the path of a file.`);
  }
  return normalized;
}

/** Git's own heuristic: a NUL byte in the first 8 KiB means binary content, not text the model can edit. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8192).includes(0);
}

/**
 * Whether `file` matches the glob `pattern`. A pattern without `/` matches the file name (`*.md`);
 * one with `/` matches the path from the repository root or from `folder` (`guide/**\/*.md`).
 */
export function matchesPattern(file: string, folder: string, pattern: string): boolean {
  if (!pattern.includes('/')) return matchesGlob(posix.basename(file), pattern);
  return (
    matchesGlob(file, pattern) ||
    (folder !== '' && isInside(file, folder) && matchesGlob(file.slice(folder.length + 1), pattern))
  );
}

function isInside(file: string, folder: string): boolean {
  return file.startsWith(`${folder}/`);
}

/**
 * `path.matchesGlob` (Node 20.17+; experimental there, so Node prints one warning per process).
 * Looked up at run time so that an older Node still loads this module and only globs fail.
 */
function matchesGlob(path: string, pattern: string): boolean {
  const matches = (nodePath as { matchesGlob?: (path: string, pattern: string) => boolean }).matchesGlob;
  if (!matches)
    throw new WorkspaceError('unsupported', 'Glob patterns need Node.js 20.17 or later on the server.');
  return matches(path, pattern);
}
