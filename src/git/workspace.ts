/**
 * The lazy workspace of one job (docs/architecture.md#the-queue-and-its-fencing): a worktree of the project's mirror on the job branch,
 * made without a checkout or an index, so its cost barely grows with the repository; reads come
 * from the object store through the mirror's `git cat-file --batch`, shared by every workspace on
 * that mirror; what the agent writes is stored as a blob at once (git is asked then whether it
 * would commit the path) and kept in an overlay (and on disk in the worktree, for later steps that
 * need real files); and the commit stages exactly the paths the agent wrote, moved or deleted.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { type CatFile, type MirrorReader, openMirrorReader } from './cat-file.js';
import { checkoutTree } from './checkout.js';
import { commitChanges } from './commit.js';
import { filterByPattern } from './glob.js';
import { type BaseMerge, mergeBase, UP_TO_DATE } from './merge.js';
import { resolveRepoPath, WorkspaceError } from './paths.js';
import { isUnder, type SearchResult, searchWorkspace } from './search.js';
import { listTree, MODE, type Overlay, type Resolved, type TreeEntry, TreeReader } from './tree.js';
import {
  type CommitOptions,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_SEARCH_LIMIT,
  type PendingChanges,
  type SearchOptions,
  startBranches,
  type WorkspaceOptions,
} from './workspace-options.js';
import {
  addWorktree,
  assertCommittable,
  hashBlob,
  readRecordedBlobs,
  removeWorktree,
  removeWrittenFile,
  type WorktreeStart,
  type WrittenFile,
} from './worktree.js';

export * from './workspace-options.js';

/**
 * A job's view of the repository. Paths are the agent's: repository-relative, checked by
 * `resolveRepoPath`, symlinks followed only inside the repository. Refusals throw `WorkspaceError`
 * (or its `PathError`) with a message for the model.
 */
export class Workspace {
  readonly mirrorPath: string;
  readonly dir: string;
  readonly branch: string;
  readonly maxFileBytes: number;
  private head: string;
  private rootTree: string;
  /**
   * Paths the agent wrote → the mode and blob to commit. The blob is the truth; a copy is on disk
   * in the worktree for later steps that need real files.
   */
  private readonly written = new Map<string, WrittenFile>();
  /** Committed paths the agent deleted (or moved away). */
  private readonly deleted = new Set<string>();
  private readonly overlay: Overlay = { written: this.written, deleted: this.deleted };
  /** The mirror's object reader, shared with the other workspaces on it (cat-file.ts). */
  private readonly objects: MirrorReader;
  private readonly catFile: CatFile;
  private readonly trees: TreeReader;
  /** The branch the job branch was made from here (the base, or the job branch itself) and its commit. */
  private readonly madeFrom: { ref: string; commit: string; tree: string };
  private closed = false;

  private constructor(options: WorkspaceOptions, dir: string, start: WorktreeStart, objects: MirrorReader) {
    this.mirrorPath = options.mirrorPath;
    this.dir = dir;
    this.branch = options.branch;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.head = start.head;
    this.rootTree = start.tree;
    this.objects = objects;
    this.catFile = objects.reader;
    this.trees = new TreeReader(this.catFile);
    this.madeFrom = { ref: start.from, commit: start.head, tree: start.tree };
  }

  /** Adds the worktree (`--no-checkout`) on the job branch; no file is written and no index is filled. */
  static async create(options: WorkspaceOptions): Promise<Workspace> {
    const dir = resolvePath(options.dir);
    const { branch, mirrorPath } = options;
    const start = startBranches(options);
    const objects = openMirrorReader(resolvePath(mirrorPath));
    try {
      const head = await addWorktree({ mirrorPath, dir, branch, start, reader: objects.reader });
      return new Workspace(options, dir, head, objects);
    } catch (error) {
      await objects.release();
      throw error;
    }
  }

  /** The commit the workspace reads from: the start, then each new commit. */
  get headCommit(): string {
    return this.head;
  }

  /**
   * Files under `path` (a folder or file; everything by default), sorted, with the agent's changes.
   * `pattern` is a glob: without a `/` it matches file names (`*.md`), with one it matches the path
   * from the repository root or from `path` (`docs/**\/*.md`).
   */
  async listFiles(path?: string, pattern?: string): Promise<string[]> {
    const where = await this.locateFolder(path);
    let files: string[] = [];
    if (where.state === 'head' && where.entry?.mode === MODE.tree)
      files =
        (await this.trees.listFiles(where.entry.sha, where.path)) ??
        (await listTree(this.dir, this.head, where.path));
    else if (where.state === 'head') files = [where.path];
    files = files.filter((file) => !this.deleted.has(file) && !this.written.has(file));
    for (const file of this.written.keys()) if (isUnder(file, where.path)) files.push(file);
    if (pattern) files = await filterByPattern(files, where.path, pattern);
    return files.sort();
  }

  /** The bytes of a file, or null when there is none. Symlinks inside the repository are followed. */
  async readFile(path: string): Promise<Buffer | null> {
    const where = await this.locate(path, true);
    if (where.state === 'written') return this.readBlob(where.path, this.writtenFile(where.path).sha);
    if (where.state !== 'head' || !where.entry) {
      if (this.isNewFolder(where.path)) throw WorkspaceError.folder(where.path);
      return null;
    }
    this.assertFile(where);
    const object = await this.catFile.read(where.entry.sha, this.maxFileBytes);
    if (!object) return null;
    if (!object.content) throw WorkspaceError.tooLarge(where.path, object.size, this.maxFileBytes);
    return object.content;
  }

  /** Creates or replaces a file (through an in-repository symlink, its target). */
  async writeFile(path: string, content: string | Buffer): Promise<void> {
    await this.write(path, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, null);
  }

  /** Deletes a file; a symlink itself, not its target (like `rm`). */
  async deleteFile(path: string): Promise<void> {
    const where = await this.locate(path, false);
    this.assertExists(where);
    await this.remove(where);
  }

  /** Moves a file (with its mode); refuses to replace an existing file or to move a folder or a symlink. */
  async moveFile(from: string, to: string): Promise<void> {
    const source = await this.locate(from, false);
    this.assertExists(source);
    if (source.state === 'head' && source.entry?.mode === MODE.symlink) {
      throw WorkspaceError.linkMove(source.path);
    }
    const target = await this.locate(to, true);
    if (target.path === source.path)
      throw new WorkspaceError('invalid_argument', 'The source and destination are the same file.');
    if (target.state === 'written' || target.state === 'head' || this.isNewFolder(target.path)) {
      if (target.entry?.mode === MODE.tree || this.isNewFolder(target.path))
        throw WorkspaceError.folder(target.path);
      throw WorkspaceError.exists(target.path);
    }
    // Moves are not capped by maxFileBytes: the content never reaches the model.
    const written = this.written.get(source.path);
    const sha = written?.sha ?? (source.entry as { sha: string }).sha;
    const content = (await this.catFile.read(sha))?.content;
    if (!content) throw WorkspaceError.notFound(source.path);
    await this.put(target.path, content, written?.mode ?? source.entry?.mode ?? MODE.file);
    await this.remove(source);
  }

  /**
   * Lines matching `query`, capped: `git grep` on the committed tree for untouched files, and on an
   * index of the agent's blobs for its own. git's engine does all matching, so an untrusted pattern
   * never runs on our event loop, and a runaway one ends at PCRE's match limit or grep's timeout.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    if (query.length === 0) throw new WorkspaceError('invalid_argument', 'The search query is empty.');
    const where = await this.locateFolder(options.path);
    return searchWorkspace({
      cwd: this.dir,
      query,
      regex: options.regex ?? false,
      path: where.path,
      limit: options.limit ?? DEFAULT_SEARCH_LIMIT,
      head: where.state === 'head' ? this.head : null,
      written: this.written,
      deleted: this.deleted,
    });
  }

  /** Whether the branch is where the workspace made it from `ref`: no commit and no merge since. */
  isAtStartOf(ref: string): boolean {
    return this.madeFrom.ref === ref && this.head === this.madeFrom.commit;
  }

  /** The entry at `path` in the head commit, or in the one the workspace started at (`TreeReader.entryAt`). */
  async entryAt(path: string, at: 'head' | 'start' = 'head'): Promise<TreeEntry | null> {
    this.assertOpen();
    return this.trees.entryAt(at === 'head' ? this.rootTree : this.madeFrom.tree, path);
  }

  /** Paths the agent wrote, moved or deleted since the last commit, sorted. */
  changedPaths(): string[] {
    return [...new Set([...this.written.keys(), ...this.deleted])].sort();
  }

  /** The changes not yet committed, by blob id over the head commit: what `restore` takes back. */
  pendingChanges(): PendingChanges {
    const written = [...this.written].map(([path, file]) => ({ path, ...file }));
    return { head: this.head, written, deleted: [...this.deleted] };
  }

  /**
   * Takes back the pending changes an earlier run of this job left (its process died), when this
   * workspace starts from the same commit, has no changes of its own, and the mirror still holds
   * every blob; false, and nothing changed, otherwise. Trusted no more than the model, each change
   * goes through the rules of the agent's writes and deletions (and at most `maxPaths` of them):
   * one that breaks them throws, and nothing is taken back.
   */
  async restore(changes: PendingChanges, maxPaths: number): Promise<boolean> {
    this.assertOpen();
    if (changes.head !== this.head || this.changedPaths().length > 0) return false;
    if (changes.written.length + changes.deleted.length > maxPaths)
      throw new WorkspaceError('invalid_argument', `The record changes more than ${maxPaths} files.`);
    const files = await readRecordedBlobs(this.catFile, changes.written, this.maxFileBytes);
    if (!files) return false;
    try {
      for (const { path, mode, content } of files) {
        if (mode !== MODE.file && mode !== MODE.executable)
          throw new WorkspaceError('unsupported', `"${path}" is recorded with mode ${mode}, not a file's.`);
        await this.write(path, content, mode);
      }
      for (const path of changes.deleted) await this.deleteFile(path);
    } catch (error) {
      for (const path of [...this.written.keys()]) await this.remove({ path, entry: null, state: 'written' });
      this.deleted.clear();
      throw error;
    }
    return true;
  }

  /**
   * Commits exactly the paths the agent wrote, moved or deleted on the job branch, as the given
   * identity (author and committer), and returns the new sha, or null when the result equals HEAD.
   * Afterwards reads come from the new commit.
   */
  async commit(options: CommitOptions): Promise<string | null> {
    this.assertOpen();
    if (options.message.trim() === '')
      throw new WorkspaceError('invalid_argument', 'The commit message is empty.');
    const result = await commitChanges({
      ...options,
      dir: this.dir,
      head: this.head,
      headTree: this.rootTree,
      written: this.written,
      deleted: this.deleted,
      objects: this.catFile,
      // `put` asked git about every path it recorded.
      pathsChecked: true,
    });
    this.written.clear();
    this.deleted.clear();
    if (!result) return null;
    this.head = result.commit;
    this.rootTree = result.tree;
    return result.commit;
  }

  /**
   * Merges the base branch into the job branch (git/merge.ts), committed as the given identity,
   * before the agent changes anything (with `rebuild`, makes the branch again on the base instead);
   * reads then come from the merge.
   */
  async mergeBase(
    baseRef: string,
    identity: Omit<CommitOptions, 'message'>,
    rebuild = false,
  ): Promise<BaseMerge> {
    this.assertOpen();
    if (this.changedPaths().length > 0) throw new Error('The base is merged before any change.');
    // A branch made from the base here holds the base as this run found it (every new job's first run).
    if (this.isAtStartOf(baseRef)) return UP_TO_DATE;
    const merged = await mergeBase({
      dir: this.dir,
      head: this.head,
      branch: this.branch,
      baseRef,
      rebuild,
      ...identity,
    });
    if (merged.commit && merged.tree) [this.head, this.rootTree] = [merged.commit, merged.tree];
    return merged;
  }

  /**
   * Writes the whole tree as it is now (the commits and the agent's unsaved changes) into `target`,
   * an existing empty folder outside the worktree, without `.git`: a real checkout, made only for a
   * step that needs files on disk (a project's check command).
   */
  async materialize(target: string): Promise<void> {
    this.assertOpen();
    const { dir, head, written, deleted } = this;
    await checkoutTree({ dir, head, written, deleted }, target);
  }

  /** Lets go of the object reader and removes the worktree; the branch stays in the mirror, to be pushed. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.objects.release();
    await removeWorktree(this.mirrorPath, this.dir);
  }

  private async locate(path: string, followFinal: boolean): Promise<Resolved> {
    this.assertOpen();
    return this.trees.resolve(this.rootTree, resolveRepoPath(path), this.overlay, followFinal);
  }

  /** Like `locate` for listing and search: empty or `.` is the root, and a symlinked folder is followed. */
  private async locateFolder(path: string | undefined): Promise<Resolved> {
    this.assertOpen();
    const relative = path ? resolveRepoPath(path, { allowRoot: true }) : '';
    return this.trees.resolve(this.rootTree, relative, this.overlay, true);
  }

  private async readBlob(path: string, sha: string): Promise<Buffer> {
    const object = await this.catFile.read(sha, this.maxFileBytes);
    if (!object) throw WorkspaceError.notFound(path);
    if (!object.content) throw WorkspaceError.tooLarge(path, object.size, this.maxFileBytes);
    return object.content;
  }

  private writtenFile(path: string): WrittenFile {
    const file = this.written.get(path);
    if (!file) throw WorkspaceError.notFound(path);
    return file;
  }

  /** `writeFile` with the mode to give (null: the file's own, or a plain file's). */
  private async write(path: string, bytes: Buffer, mode: string | null): Promise<void> {
    if (bytes.length > this.maxFileBytes)
      throw WorkspaceError.tooLarge(path, bytes.length, this.maxFileBytes);
    const where = await this.locate(path, true);
    if (where.state !== 'written') {
      if (this.isNewFolder(where.path)) throw WorkspaceError.folder(where.path);
      if (where.entry) this.assertFile(where);
    }
    const kept =
      this.written.get(where.path)?.mode ??
      (where.entry?.mode === MODE.executable ? MODE.executable : MODE.file);
    await this.put(where.path, bytes, mode ?? kept);
  }

  /** Stores the blob, asks git whether it would commit the path, and only then records the write. */
  private async put(path: string, content: Buffer, mode: string): Promise<void> {
    const written = { mode, sha: await hashBlob(this.dir, content) };
    await assertCommittable(this.dir, path, written);
    const file = join(this.dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    this.written.set(path, written);
    this.deleted.delete(path);
  }

  private async remove(where: Resolved): Promise<void> {
    if (where.state === 'written') {
      this.written.delete(where.path);
      await removeWrittenFile(this.dir, where.path);
    }
    if (where.entry) this.deleted.add(where.path);
  }

  private assertExists(where: Resolved): void {
    if (where.state === 'written') return;
    if (where.state !== 'head' || !where.entry) {
      if (this.isNewFolder(where.path)) throw WorkspaceError.folder(where.path);
      throw WorkspaceError.notFound(where.path);
    }
    this.assertFile(where);
  }

  private assertFile(where: Resolved): void {
    if (where.entry?.mode === MODE.tree) throw WorkspaceError.folder(where.path);
    if (where.entry?.mode === MODE.submodule) throw WorkspaceError.submodule(where.path);
  }

  private assertOpen(): void {
    if (this.closed) throw new WorkspaceError('closed', 'The workspace is closed.');
  }

  /** True when the agent wrote files below `path`, making it a folder the committed tree may not have. */
  private isNewFolder(path: string): boolean {
    for (const file of this.written.keys()) if (file.startsWith(`${path}/`)) return true;
    return false;
  }
}
