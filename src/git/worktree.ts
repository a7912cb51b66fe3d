/**
 * The git side of a workspace: adding and removing its worktree, and turning the agent's changes
 * into a commit. Plumbing only (`read-tree`, `update-index`, `write-tree`, `commit-tree`,
 * `update-ref`): nothing here reads or writes the files of the repository.
 */
import { rm, stat } from 'node:fs/promises';
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

/** What `commitChanges` commits: the worktree's HEAD plus exactly these paths. */
export interface Changes {
  dir: string;
  head: string;
  headTree: string;
  /** Written paths → mode; their content is the file on disk in the worktree. */
  written: ReadonlyMap<string, string>;
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
 */
export async function commitChanges(changes: Changes): Promise<{ commit: string; tree: string } | null> {
  const cwd = changes.dir;
  const zero = '0'.repeat(changes.head.length);
  // Deletions first, so a file may replace a folder the agent emptied.
  const records = [...changes.deleted].map((path) => `0 ${zero}\t${path}\0`);
  const writes = [...changes.written];
  if (writes.length > 0) {
    // --no-filters: commit the bytes the agent wrote, exactly as later reads will return them.
    const { stdout } = await runGit(['hash-object', '-w', '--no-filters', '--stdin-paths'], {
      cwd,
      input: writes.map(([path]) => `${path}\n`).join(''),
    });
    const shas = stdout.toString('utf8').trim().split('\n');
    for (const [index, [path, mode]] of writes.entries()) records.push(`${mode} ${shas[index]}\t${path}\0`);
  }
  // Nothing staged: the tree is HEAD's, and no git process needs to run.
  if (records.length === 0) return null;
  // The index starts as exactly the commit the changes apply to, then takes the changed paths.
  await runGit(['read-tree', changes.head], { cwd });
  await runGit(['update-index', '-z', '--index-info'], { cwd, input: records.join('') });
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
