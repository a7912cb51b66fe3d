/**
 * A read-only view of a bare repository at one commit: how the agent reads a context repository
 * (docs/context-repositories.md). Nothing is checked out and no worktree is made; reads go
 * through the mirror's shared `git cat-file --batch` (cat-file.ts), listings through the tree
 * walk or `git ls-tree`, search through `git grep <commit>`, the same readers the workspace uses
 * for its committed tree. Paths obey the workspace's rules: `resolveRepoPath` refuses `..`,
 * absolute paths, `.git` and quoted names, and symlinks are followed only while they stay inside
 * the repository (a link inside reads as its target, as in the workspace; one leading out is
 * refused). The same size limit holds, and the tools refuse binary files the same way.
 */
import { resolve as resolvePath } from 'node:path';
import { type CommitAndTree, type MirrorReader, openMirrorReader } from './cat-file.js';
import { filterByPattern } from './glob.js';
import { resolveRepoPath, WorkspaceError } from './paths.js';
import { grepTree, type SearchResult } from './search.js';
import { listTree, MODE, type Overlay, type Resolved, TreeReader } from './tree.js';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_SEARCH_LIMIT, type SearchOptions } from './workspace.js';

/**
 * What the agent's read tools need of a repository: the job's `Workspace` (with its changes) and a
 * context repository's `Snapshot` both are one.
 */
export interface ReadableRepository {
  /** Files under `path` (everything by default), sorted; `pattern` a glob as `Workspace.listFiles`. */
  listFiles(path?: string, pattern?: string): Promise<string[]>;
  /** The bytes of a file, or null when there is none; throws `WorkspaceError` for a refusal. */
  readFile(path: string): Promise<Buffer | null>;
  /** Matching lines, capped, as `Workspace.search`. */
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
}

/** Options of `Snapshot.open`. */
export interface SnapshotOptions {
  /** A bare repository (a mirror) holding `commit`. */
  gitDir: string;
  /** The commit every read is at. */
  commit: string;
  /** Largest file read, in bytes. Default `DEFAULT_MAX_FILE_BYTES`. */
  maxFileBytes?: number;
}

/** Nothing written or deleted: a snapshot's tree is exactly the commit's. */
const NO_CHANGES: Overlay = { written: new Map(), deleted: new Set() };

/** A repository as it was at one commit, read lazily; `close` lets go of the object reader. */
export class Snapshot implements ReadableRepository {
  readonly gitDir: string;
  readonly maxFileBytes: number;
  private readonly commit: string;
  private readonly objects: MirrorReader;
  private readonly trees: TreeReader;
  private start: Promise<CommitAndTree> | null = null;
  private closed = false;

  private constructor(options: SnapshotOptions) {
    this.gitDir = resolvePath(options.gitDir);
    this.commit = options.commit;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.objects = openMirrorReader(this.gitDir);
    this.trees = new TreeReader(this.objects.reader);
  }

  /** Opens the snapshot; no process starts until the first read. */
  static open(options: SnapshotOptions): Snapshot {
    return new Snapshot(options);
  }

  async listFiles(path?: string, pattern?: string): Promise<string[]> {
    const { commit, where } = await this.locate(path ?? '', true);
    let files: string[] = [];
    if (where.entry?.mode === MODE.tree)
      files =
        (await this.trees.listFiles(where.entry.sha, where.path)) ??
        (await listTree(this.gitDir, commit, where.path));
    else if (where.entry) files = [where.path];
    if (pattern) files = await filterByPattern(files, where.path, pattern);
    return files.sort();
  }

  async readFile(path: string): Promise<Buffer | null> {
    const { where } = await this.locate(path, false);
    if (!where.entry) return null;
    if (where.entry.mode === MODE.tree) throw WorkspaceError.folder(where.path);
    if (where.entry.mode === MODE.submodule) {
      throw new WorkspaceError(
        'unsupported',
        `"${where.path}" is a git submodule, another repository; it cannot be read here.`,
      );
    }
    const object = await this.objects.reader.read(where.entry.sha, this.maxFileBytes);
    if (!object) return null;
    if (!object.content) throw WorkspaceError.tooLarge(where.path, object.size, this.maxFileBytes);
    return object.content;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    if (query.length === 0) throw new WorkspaceError('invalid_argument', 'The search query is empty.');
    const { commit, where } = await this.locate(options.path ?? '', true);
    if (!where.entry) return { matches: [], truncated: false };
    return grepTree({
      cwd: this.gitDir,
      commit,
      query,
      regex: options.regex ?? false,
      path: where.path,
      limit: options.limit ?? DEFAULT_SEARCH_LIMIT,
      skip: () => false,
    });
  }

  /** Lets go of the object reader (its process ends with its last user). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.objects.release();
  }

  /**
   * The commit and where `path` really is in it; `folder` accepts the root (`''`, `.`), as listing
   * and search do. A symlink is followed in every component, and only inside the repository.
   */
  private async locate(path: string, folder: boolean): Promise<{ commit: string; where: Resolved }> {
    if (this.closed) throw new WorkspaceError('closed', 'The repository is closed.');
    const relative = folder
      ? path
        ? resolveRepoPath(path, { allowRoot: true })
        : ''
      : resolveRepoPath(path);
    const start = await this.resolveStart();
    return { commit: start.commit, where: await this.trees.resolve(start.tree, relative, NO_CHANGES, true) };
  }

  /** The commit's sha and tree, read once; a commit missing from the repository is a refusal. */
  private resolveStart(): Promise<CommitAndTree> {
    this.start ??= this.objects.reader.resolveCommit(this.commit).then((found) => {
      if (found) return found;
      throw new WorkspaceError('not_found', `Commit ${this.commit.slice(0, 12)} is not in the repository.`);
    });
    // A failed read (the reader crashed) is not kept: the next call tries again.
    this.start.catch(() => {
      this.start = null;
    });
    return this.start;
  }
}
