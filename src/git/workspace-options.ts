/** The options and shapes `Workspace` (workspace.ts) takes and gives, and its defaults. */

/** Default limit on the size of a file the agent may read or write (docs/configuration.md#workers-and-jobs). */
export const DEFAULT_MAX_FILE_BYTES = 512 * 1024;
/** Default cap on search results. */
export const DEFAULT_SEARCH_LIMIT = 200;

/** Changes not yet committed, as `Workspace.pendingChanges` gives them and `restore` takes them. */
export interface PendingChanges {
  /** The commit they apply to. */
  head: string;
  written: { path: string; mode: string; sha: string }[];
  deleted: string[];
}

/** Options of `Workspace.create`. */
export interface WorkspaceOptions {
  /** The project's bare mirror (from `ensureMirror`). */
  mirrorPath: string;
  /** Where the worktree goes; must not exist or be empty (a stale worktree of this mirror is replaced). */
  dir: string;
  /** The job branch, created or reset in the mirror. */
  branch: string;
  /** The base branch, e.g. `main`. */
  baseRef: string;
  /**
   * 'base' (default): start the job branch at `baseRef`; 'branch': continue the existing job branch
   * (a follow-up); 'branch-or-base': continue the job branch when the mirror has it (an earlier run
   * pushed it), else start at `baseRef`.
   */
  startFrom?: 'base' | 'branch' | 'branch-or-base';
  /** Largest file the agent may read or write, in bytes. Default `DEFAULT_MAX_FILE_BYTES`. */
  maxFileBytes?: number;
}

/** The branches a workspace may start from, the first the mirror has (`addWorktree`'s `start`). */
export function startBranches(options: WorkspaceOptions): string | string[] {
  const { branch, baseRef, startFrom } = options;
  if (startFrom === 'branch') return branch;
  return startFrom === 'branch-or-base' ? [branch, baseRef] : baseRef;
}

/** Options of `Workspace.commit`: the bot identity is both author and committer. */
export interface CommitOptions {
  message: string;
  authorName: string;
  authorEmail: string;
  /** Stops the commit: its git processes are killed and the branch does not move. */
  signal?: AbortSignal | undefined;
}

/** Options of `Workspace.search`. */
export interface SearchOptions {
  /** Folder or file to search in; the whole repository by default. */
  path?: string;
  /** Treat `query` as a regular expression (Perl-style when git has PCRE); a fixed string otherwise. */
  regex?: boolean;
  /** Most matches returned. Default `DEFAULT_SEARCH_LIMIT`. */
  limit?: number;
}
