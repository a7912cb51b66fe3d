/**
 * The git side of a workspace: adding and removing its worktree, and turning the agent's changes
 * into a commit. Plumbing only (`read-tree`, `update-index`, `write-tree`, `commit-tree`,
 * `update-ref`): nothing here reads or writes the files of the repository.
 */
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBranchName, withMirrorLock } from './mirror.js';
import { WorkspaceError } from './paths.js';
import { runGit } from './run.js';

/** Where a new worktree starts. */
export interface WorktreeStart {
  head: string;
  tree: string;
}

/**
 * Adds a worktree at `dir` on `branch` (created, or reset, at `start`) without a checkout. Its
 * index stays empty: only a commit needs it, and filling it (`read-tree`) costs tens of
 * milliseconds on a large repository, so `commitChanges` does that when there is something to stage.
 */
export async function addWorktree(options: {
  mirrorPath: string;
  dir: string;
  branch: string;
  start: string;
}): Promise<WorktreeStart> {
  const { mirrorPath, dir, branch, start } = options;
  await assertBranchName(branch);
  await assertBranchName(start);
  const startRef = `refs/heads/${start}`;
  // Under the mirror's lock: a fetch running meanwhile could otherwise prune the new branch.
  await withMirrorLock(mirrorPath, async () => {
    const found = await runGit(['rev-parse', '--verify', '--quiet', `${startRef}^{commit}`], {
      cwd: mirrorPath,
    }).then(
      () => true,
      () => false,
    );
    if (!found) throw new WorkspaceError('not_found', `The branch ${start} does not exist in the mirror.`);
    const exists = await stat(dir).then(
      () => true,
      () => false,
    );
    // A run that crashed left its worktree; a retry takes its place. Anything else stays and fails below.
    if (exists) await runGit(['worktree', 'remove', '--force', dir], { cwd: mirrorPath }).catch(() => {});
    await runGit(['worktree', 'prune'], { cwd: mirrorPath });
    // --no-track: the job branch must not follow the base (no branch.* config piling up in the mirror).
    await runGit(['worktree', 'add', '--quiet', '--no-checkout', '--no-track', '-B', branch, dir, startRef], {
      cwd: mirrorPath,
    });
  });
  try {
    const { stdout } = await runGit(['rev-parse', 'HEAD', 'HEAD^{tree}'], { cwd: dir });
    const [head, tree] = stdout.toString('utf8').trim().split('\n');
    return { head: head as string, tree: tree as string };
  } catch (error) {
    await removeWorktree(mirrorPath, dir);
    throw error;
  }
}

/** Removes the worktree (and whatever was written into it); the branch stays in the mirror. */
export async function removeWorktree(mirrorPath: string, dir: string): Promise<void> {
  try {
    await runGit(['worktree', 'remove', '--force', dir], { cwd: mirrorPath });
  } catch {
    // Already half gone (deleted by hand, or a crash): finish the job and let git forget it.
    await rm(dir, { recursive: true, force: true });
    await runGit(['worktree', 'prune'], { cwd: mirrorPath }).catch(() => {});
  }
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
 * Refuses a path git would not commit, asking git itself (its `verify_path` rules change between
 * versions and platforms), so a write the commit would drop is never reported as done.
 */
export async function assertCommittable(dir: string, path: string, file: WrittenFile): Promise<void> {
  const warnings = await withScratchIndex(dir, new Map([[path, file]]), async (_env, warnings) => warnings);
  if (warnings !== '') {
    throw new WorkspaceError(
      'invalid_path',
      `git cannot commit a file at "${path}" (${warnings.split('\n')[0]}). Choose another name.`,
    );
  }
}

/** What `commitChanges` commits: the worktree's HEAD plus exactly these paths. */
export interface Changes {
  dir: string;
  head: string;
  headTree: string;
  /** Written paths and their blobs. */
  written: ReadonlyMap<string, WrittenFile>;
  deleted: ReadonlySet<string>;
  message: string;
  authorName: string;
  authorEmail: string;
}

/**
 * Stages the changes into the index and commits it on the worktree's branch. Returns the commit and
 * its tree, or null when the tree equals HEAD's. The branch moves only if it is still at `head`
 * (`update-ref` compare-and-swap), so a commit never silently replaces someone else's; and no
 * hook or signing configuration runs, as it would with `git commit`.
 *
 * @throws Error when git would leave out one of the paths, rather than commit less than was written.
 */
export async function commitChanges(changes: Changes): Promise<{ commit: string; tree: string } | null> {
  const cwd = changes.dir;
  const zero = '0'.repeat(changes.head.length);
  // Deletions first, so a file may replace a folder the agent emptied.
  const records = [...changes.deleted].map((path) => `0 ${zero}\t${path}\0`);
  for (const [path, file] of changes.written) records.push(indexRecord(path, file));
  // Nothing staged: the tree is HEAD's, and no git process needs to run.
  if (records.length === 0) return null;
  // The index starts as exactly the commit the changes apply to, then takes the changed paths.
  await runGit(['read-tree', changes.head], { cwd });
  const { stderr } = await runGit(['update-index', '-z', '--index-info'], { cwd, input: records.join('') });
  if (stderr.trim() !== '')
    throw new Error(`git left changes out of the commit: ${stderr.trim().slice(0, 300)}`);
  const tree = (await runGit(['write-tree'], { cwd })).stdout.toString('utf8').trim();
  if (tree === changes.headTree) return null;

  const identity = {
    GIT_AUTHOR_NAME: changes.authorName,
    GIT_AUTHOR_EMAIL: changes.authorEmail,
    GIT_COMMITTER_NAME: changes.authorName,
    GIT_COMMITTER_EMAIL: changes.authorEmail,
  };
  const message = changes.message.endsWith('\n') ? changes.message : `${changes.message}\n`;
  const { stdout } = await runGit(['commit-tree', '--no-gpg-sign', tree, '-p', changes.head], {
    cwd,
    env: identity,
    input: message,
  });
  const commit = stdout.toString('utf8').trim();
  await runGit(['update-ref', '-m', 'agentjobs: commit', 'HEAD', commit, changes.head], { cwd });
  return { commit, tree };
}
