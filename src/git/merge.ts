/**
 * Bringing a job branch up to date with its base before a follow-up (docs/api.md),
 * without a checkout: `git merge-tree --write-tree` computes the merged tree, with conflict
 * markers in the files that conflict, and `commit-tree` records it as a merge commit with the
 * branch and the base as parents. A clean merge is simply committed. A merge with conflicts is
 * committed too, markers and all, so the agent finds the conflicting files as the files it works
 * on and its resolution is the next commit; the run's checks refuse to publish while a marker is
 * left (checks/markers.ts), so the commit with markers never reaches a pull request alone.
 *
 * A rebuild (the `rebase` command on a job's pull request) computes the same tree but records it
 * as one commit whose only parent is the base: the branch made again on the base as it is now,
 * with the job's changes (every commit of the branch, squashed) re-applied. Re-applying the net
 * change in one three-way merge, rather than replaying each commit as `git rebase` does, meets
 * each conflict once, in the files the agent then resolves like a merge's; the price is the
 * branch's history, which a rebase rewrites anyway. It needs a forced push (with a lease).
 */
import { GitError, runGit } from './run.js';

/** What `mergeBase` did. */
export interface BaseMerge {
  /**
   * `up-to-date`: the branch already contains the base; `merged`: a clean merge was committed;
   * `conflicts`: the merge was committed with conflict markers in `conflicts`.
   */
  status: 'up-to-date' | 'merged' | 'conflicts';
  /** The merge commit and its tree; null when up to date. */
  commit: string | null;
  tree: string | null;
  /** Files that conflict, sorted; empty unless `conflicts`. */
  conflicts: string[];
  /** With `rebuild`: the commit the branch was at before it was made again on the base; else null. */
  rebuiltFrom: string | null;
}

/** What `mergeBase` takes: a worktree on its branch at `head`, and the identity of the merge commit. */
export interface MergeBaseOptions {
  /** The worktree of the job branch. */
  dir: string;
  /** The branch's commit, which HEAD must still be (the merge moves HEAD by compare-and-swap). */
  head: string;
  branch: string;
  baseRef: string;
  authorName: string;
  authorEmail: string;
  /** Make the branch again on the base (see the module's comment) instead of merging into it. */
  rebuild?: boolean;
}

/** A merge that had nothing to do. */
export const UP_TO_DATE: BaseMerge = {
  status: 'up-to-date',
  commit: null,
  tree: null,
  conflicts: [],
  rebuiltFrom: null,
};

/** Merges `refs/heads/<baseRef>` into the worktree's branch (see the module's comment). */
export async function mergeBase(options: MergeBaseOptions): Promise<BaseMerge> {
  const { dir: cwd, head, branch, baseRef } = options;
  const git = async (args: string[]) => (await runGit(args, { cwd })).stdout.toString('utf8').trim();
  const base = await git(['rev-parse', '--verify', `refs/heads/${baseRef}^{commit}`]);
  const contained = await runGit(['merge-base', '--is-ancestor', base, head], { cwd }).then(
    () => true,
    (error: unknown) => {
      if (error instanceof GitError && error.exitCode === 1) return false;
      throw error;
    },
  );
  const rebuild = options.rebuild === true && head !== base;
  if (contained && !rebuild) return UP_TO_DATE;

  // The full ref names are the markers' labels: a tag of the same short name must not be taken instead.
  const merged = contained
    ? { exitCode: 0, stdout: Buffer.from(await git(['rev-parse', `${head}^{tree}`])) }
    : await runGit(
        [
          'merge-tree',
          '--write-tree',
          '-z',
          '--name-only',
          '--no-messages',
          `refs/heads/${branch}`,
          `refs/heads/${baseRef}`,
        ],
        { cwd, acceptExitCodes: [1] },
      );
  const [tree = '', ...files] = merged.stdout.toString('utf8').split('\0');
  const conflicts = merged.exitCode === 1 ? [...new Set(files.filter(Boolean))].sort() : [];
  const subject = rebuild
    ? `Make ${branch} again on ${baseRef}, with the job's changes re-applied`
    : `Merge ${baseRef} into ${branch}`;
  const message =
    conflicts.length === 0
      ? `${subject}\n`
      : `${subject}, with conflicts left for the agent\n\nConflicts:\n${conflicts.map((file) => `\t${file}`).join('\n')}\n`;
  const identity = {
    GIT_AUTHOR_NAME: options.authorName,
    GIT_AUTHOR_EMAIL: options.authorEmail,
    GIT_COMMITTER_NAME: options.authorName,
    GIT_COMMITTER_EMAIL: options.authorEmail,
  };
  const commit = (
    await runGit(['commit-tree', '--no-gpg-sign', tree, ...(rebuild ? [] : ['-p', head]), '-p', base], {
      cwd,
      env: identity,
      input: message,
    })
  ).stdout
    .toString('utf8')
    .trim();
  const reason = rebuild ? `agentjobs: make again on ${baseRef}` : `agentjobs: merge ${baseRef}`;
  await runGit(['update-ref', '-m', reason, 'HEAD', commit, head], { cwd });
  return {
    status: conflicts.length === 0 ? 'merged' : 'conflicts',
    commit,
    tree,
    conflicts,
    rebuiltFrom: rebuild ? head : null,
  };
}
