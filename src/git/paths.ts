/**
 * Path confinement for the agent's file tools. Every path a model sends passes through
 * `resolveRepoPath` before it reaches git or the disk, so the rest of `git/` only ever sees
 * normalized, repository-relative POSIX paths that cannot leave the repository or touch `.git`.
 *
 * Messages are written for the model: they say what was wrong and what a valid path looks like,
 * because a tool error is shown to the model so it can correct itself (docs/architecture.md#the-runs-phases).
 */
import { posix } from 'node:path';
import { JobFailure } from '../domain/errors.js';

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
export class WorkspaceError extends JobFailure<'repository_error'> {
  override name = 'WorkspaceError';
  readonly reason: WorkspaceErrorCode;

  constructor(reason: WorkspaceErrorCode, message: string) {
    super('repository_error', message);
    this.reason = reason;
  }

  static notFound(path: string): WorkspaceError {
    return new WorkspaceError('not_found', `"${path}" does not exist.`);
  }

  static folder(path: string): WorkspaceError {
    return new WorkspaceError('is_directory', `"${path || '.'}" is a folder, not a file.`);
  }

  static exists(path: string): WorkspaceError {
    return new WorkspaceError('already_exists', `"${path}" already exists. Delete it first to replace it.`);
  }

  static linkMove(path: string): WorkspaceError {
    return new WorkspaceError('unsupported', `"${path}" is a symbolic link; moving links is not supported.`);
  }

  static submodule(path: string): WorkspaceError {
    return new WorkspaceError(
      'unsupported',
      `"${path}" is a git submodule, another repository; it cannot be read or changed here.`,
    );
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

  constructor(message: string, reason: 'invalid_path' | 'outside_repository' = 'invalid_path') {
    super(reason, message);
  }
}

/** Options of `resolveRepoPath`. */
export interface ResolveRepoPathOptions {
  /** Accept the repository root (`.`, `./`) and return `''` for it, e.g. for listing. Default false. */
  allowRoot?: boolean;
}

/**
 * Characters refused anywhere in a path, each for a reason that matters here:
 * - C0 controls (NUL, tab, line breaks, escape, …) and DEL: git's line-based protocols split or
 *   quote on them, terminals and logs render them as commands, and no sensible file name has one;
 * - C1 controls (U+0080–U+009F): invisible, and some terminals act on them as they do on escapes;
 * - directional formatting (U+202A–U+202E, U+2066–U+2069): they make a name display as another
 *   one, so a reviewer of the pull request would read a different path than the one committed.
 */
// `\p{Cc}` is exactly the C0 controls, DEL and the C1 controls.
const FORBIDDEN_CHARACTERS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/**
 * Code points HFS+ ignores when it compares names, so `.g\u200cit` is `.git` on a Mac that checks the
 * branch out. They are legitimate inside other names (Persian text uses U+200C), so they are only
 * removed to compare a component with `.git`.
 */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/**
 * A component that some file system git supports opens as `.git`, after HFS+ dropped its ignored
 * code points and case: NTFS drops trailing dots and spaces (`.git.`, `.git `), names an alternate
 * data stream after a colon (`.git::$INDEX_ALLOCATION`), and gives `.git` the short name `GIT~1`.
 * Git itself refuses most of these only on some platforms; a branch pushed from here is checked out
 * on all of them, where such a file would write into the repository's own configuration or hooks.
 */
function looksLikeDotGit(component: string): boolean {
  const folded = component.replace(HFS_IGNORED, '').toLowerCase();
  return /^(\.git|git~\d)[. ]*(:.*)?$/.test(folded);
}

/**
 * Turns a path from the model into a normalized repository-relative POSIX path (`docs/a.md`).
 * Backslashes count as separators, so a Windows-style `..\\..\\x` is caught like `../../x`.
 *
 * @throws PathError for an empty path, control or directional characters, a leading double quote,
 * text that is not valid Unicode, an absolute path (`/x`, `C:\x`), a `..` that escapes the root,
 * and `.git` or a name that a file system takes for it as any component.
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
  if (FORBIDDEN_CHARACTERS.test(input)) {
    throw new PathError(
      `The path ${JSON.stringify(input)} contains a control or text-direction character; file names here use printable characters only.`,
    );
  }
  // A lone surrogate cannot be written as UTF-8: the file on disk would get another name than this one.
  if (!input.isWellFormed()) throw new PathError('The path is not valid Unicode text.');
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
  // Git reads a line that starts with a double quote as a C-quoted string, so such a name could
  // turn into another path (`"/etc/passwd"`) in any line-based git input.
  if (normalized.startsWith('"')) {
    throw new PathError(
      `The path ${input} starts with a double quote; write the path without quotes, e.g. docs/index.md.`,
    );
  }
  const lookalike = normalized.split('/').find(looksLikeDotGit);
  if (lookalike !== undefined) {
    const exact = lookalike.toLowerCase() === '.git';
    throw new PathError(
      exact
        ? `"${input}" is inside .git, git's own data, which cannot be read or changed. Use the repository's files.`
        : `"${input}" has a component ${JSON.stringify(lookalike)} that some file systems read as .git, git's own data; it cannot be used. Choose another name.`,
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
