/**
 * The git side of a workspace: adding and removing its worktree, storing what the agent writes as
 * blobs, and asking git whether it would commit a path (the commit itself is in commit.ts).
 * Plumbing only: nothing here reads or writes the files of the repository.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix, resolve as resolvePath, sep } from 'node:path';
import type { CatFile, CommitAndTree } from './cat-file.js';
import { assertBranchName, withMirrorLock } from './mirror.js';
import { WorkspaceError } from './paths.js';
import { runGit } from './run.js';
import { MODE } from './tree.js';

/** Where a new worktree starts. */
export interface WorktreeStart {
  head: string;
  tree: string;
  /** The name in `start` the branch was made from. */
  from: string;
}

/**
 * Adds a worktree at `dir` on `branch` (created, or reset, at the commit `start` names) without a
 * checkout. It never gets an index: filling one (`read-tree`) costs tens of milliseconds on a large
 * repository, and the commit builds its trees without one (commit.ts). `start` is a branch of the
 * mirror, or a list of them: the first that exists.
 *
 * The start is resolved, and the worktree added, under the mirror's lock (a fetch could otherwise
 * prune or move the new branch), in a batch with the other worktrees being added or removed at
 * that moment (`withMirrorLock`). One `git worktree add` per job: the start comes
 * from the mirror's object reader, names are checked by git only when it refuses one, and stale
 * worktrees are pruned only when one is in the way.
 */
export async function addWorktree(options: {
  mirrorPath: string;
  dir: string;
  branch: string;
  start: string | string[];
  reader: CatFile;
}): Promise<WorktreeStart> {
  const { mirrorPath, dir, branch, reader } = options;
  const starts = typeof options.start === 'string' ? [options.start] : options.start;
  // Names are never passed where git could read them as options; the rest git checks itself.
  for (const name of [branch, ...starts]) if (name.startsWith('-')) await assertBranchName(name);
  return withMirrorLock(
    mirrorPath,
    async () => {
      let start: CommitAndTree | null = null;
      let from = '';
      for (const name of starts) {
        start = /[\s~^:?*[\\]|@\{|\.\./.test(name) ? null : await reader.resolveCommit(`refs/heads/${name}`);
        from = name;
        if (start) break;
      }
      if (!start) {
        const last = starts.at(-1) as string;
        await assertBranchName(last);
        throw new WorkspaceError('not_found', `The branch ${last} does not exist in the mirror.`);
      }
      const exists = await stat(dir).then(
        () => true,
        () => false,
      );
      // A run that crashed left its worktree; a retry takes its place. Anything else stays and fails below.
      if (exists) await runGit(['worktree', 'remove', '--force', dir], { cwd: mirrorPath }).catch(() => {});
      // --no-track: the job branch must not follow the base (no branch.* config piling up in the mirror).
      const add = [
        'worktree',
        'add',
        '--quiet',
        '--no-checkout',
        '--no-track',
        '-B',
        branch,
        dir,
        start.commit,
      ];
      try {
        await runGit(add, { cwd: mirrorPath });
      } catch (error) {
        await assertBranchName(branch);
        // A worktree whose folder is gone may still hold the branch: forget such worktrees, try again.
        await runGit(['worktree', 'prune'], { cwd: mirrorPath });
        await runGit(add, { cwd: mirrorPath }).catch(() => {
          throw error;
        });
      }
      return { head: start.commit, tree: start.tree, from };
    },
    { batch: true },
  );
}

/**
 * Removes the worktree (and whatever was written into it); the branch stays in the mirror. What
 * `git worktree remove --force` does, without a process: the folder, then git's record of it
 * (`<mirror>/worktrees/<name>`, which the folder's `.git` file names). When the folder is already
 * half gone, `git worktree prune` forgets it.
 */
export async function removeWorktree(mirrorPath: string, dir: string): Promise<void> {
  const record = await readFile(join(dir, '.git'), 'utf8').then(
    (text) => /^gitdir: (.+)$/m.exec(text)?.[1]?.trim() ?? null,
    () => null,
  );
  await rm(dir, { recursive: true, force: true });
  const records = join(resolvePath(mirrorPath), 'worktrees');
  // Under the mirror's lock: `git worktree add` reads every record, and fails on one half removed.
  await withMirrorLock(
    mirrorPath,
    async () => {
      if (record && resolvePath(record).startsWith(`${records}${sep}`))
        await rm(resolvePath(record), { recursive: true, force: true });
      else await runGit(['worktree', 'prune'], { cwd: mirrorPath }).catch(() => {});
    },
    { batch: true },
  );
}

/** A file the agent wrote: its mode and the blob holding its content, already in the object store. */
export interface WrittenFile {
  mode: string;
  sha: string;
}

/**
 * Stores `content` as a blob and returns its id. Contents go to git by stdin and come back by id,
 * never by path: git reinterprets paths in its line-based inputs (a leading `"` is unquoted), and
 * `--stdin` without `--path` applies no filters, so the blob holds exactly the agent's bytes.
 */
export async function hashBlob(dir: string, content: Buffer): Promise<string> {
  const { stdout } = await runGit(['hash-object', '-w', '--no-filters', '--stdin'], {
    cwd: dir,
    input: content,
  });
  return stdout.toString('utf8').trim();
}

/** One `update-index -z --index-info` record: NUL-terminated, so no byte of the path is read as syntax. */
function indexRecord(path: string, file: WrittenFile): string {
  return `${file.mode} ${file.sha}\t${path}\0`;
}

/**
 * Runs `run` with an index of its own holding exactly `files`, given to git through `GIT_INDEX_FILE`.
 * Resolves with what git printed on stderr while filling it: git skips a path it will not store
 * ("Ignoring path …") with a warning and exit code 0, so the warning is the only sign.
 */
export async function withScratchIndex<T>(
  dir: string,
  files: ReadonlyMap<string, WrittenFile>,
  run: (env: Record<string, string>, warnings: string) => Promise<T>,
): Promise<T> {
  const env = { GIT_INDEX_FILE: join(tmpdir(), `agentjobs-index-${randomUUID()}`) };
  try {
    const records = [...files].map(([path, file]) => indexRecord(path, file)).join('');
    const { stderr } = await runGit(['update-index', '-z', '--index-info'], {
      cwd: dir,
      env,
      input: records,
    });
    return await run(env, stderr.trim());
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
  }
}

/**
 * A path git commits on every version and platform: each part ASCII letters, digits, `_`, `-` and
 * `.`, not starting with a dot. git's refusals (`verify_path`) all need something else: a part
 * that starts with a dot (`.git`, `.`, `..` and their NTFS and HFS look-alikes), a `~` (the NTFS
 * short name `GIT~1`), a backslash, or a character beyond ASCII.
 */
export function isPlainPath(path: string): boolean {
  return path.split('/').every((part) => /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(part));
}

/**
 * Refuses a path git would not commit, asking git itself (its `verify_path` rules change between
 * versions and platforms), so a write the commit would drop is never reported as done. A file at
 * a plain path (`isPlainPath`), which every git commits, needs no git process to know that.
 */
export async function assertCommittable(dir: string, path: string, file: WrittenFile): Promise<void> {
  if (isPlainPath(path) && (file.mode === MODE.file || file.mode === MODE.executable)) return;
  const warnings = await withScratchIndex(dir, new Map([[path, file]]), async (_env, warnings) => warnings);
  if (warnings !== '') {
    throw new WorkspaceError(
      'invalid_path',
      `git cannot commit a file at "${path}" (${warnings.split('\n')[0]}). Choose another name.`,
    );
  }
}

/** Removes a file the agent wrote from the worktree, and the folders it leaves empty. */
export async function removeWrittenFile(dir: string, path: string): Promise<void> {
  await rm(join(dir, path), { force: true });
  // Empty folders left on disk would block writing a file of the same name later.
  for (let folder = posix.dirname(path); folder !== '.'; folder = posix.dirname(folder)) {
    const removed = await rmdir(join(dir, folder)).then(
      () => true,
      () => false,
    );
    if (!removed) break;
  }
}

/**
 * The blobs a saved progress record names, read from the mirror; null when one is not a plain
 * object id (`cat-file` would also read `branch:path`), not a blob, or too large.
 */
export async function readRecordedBlobs(
  catFile: CatFile,
  written: readonly { path: string; mode: string; sha: string }[],
  maxBytes: number,
): Promise<{ path: string; mode: string; content: Buffer }[] | null> {
  const files: { path: string; mode: string; content: Buffer }[] = [];
  for (const { path, mode, sha } of written) {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) return null;
    const object = await catFile.read(sha, maxBytes);
    if (object?.type !== 'blob' || !object.content) return null;
    files.push({ path, mode, content: object.content });
  }
  return files;
}
