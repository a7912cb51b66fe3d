/**
 * Catching up with commits someone else pushed to a job branch while a run worked on it (a
 * reviewer's fix on the pull request's branch): the branch as the remote has it now is fetched
 * into the worktree's own `FETCH_HEAD` (never onto the mirror's `refs/heads/*`, which the worktree
 * has checked out), and merged into the run's head without a checkout, as `merge.ts` merges the
 * base. Their commits become ancestors of the run's head, so the push that follows is a
 * fast-forward: nothing they pushed is ever overwritten (docs/code-hosts.md).
 */
import { GitError, runGit } from './run.js';

/** Whether git refused a push because the remote branch has commits the pushed one lacks. */
export function isPushBehind(error: unknown): boolean {
  return error instanceof GitError && /\[rejected\]|non-fast-forward|fetch first/.test(error.stderr);
}

/** The commit `branch` points at on the worktree's `origin`, fetched into the worktree's `FETCH_HEAD`. */
export async function fetchRemoteHead(options: {
  dir: string;
  branch: string;
  env: Record<string, string>;
}): Promise<string> {
  const { dir: cwd, branch, env } = options;
  // `--refmap=` keeps git from updating the mirror's `refs/heads/<branch>` alongside (the configured
  // refspec would): that ref is the worktree's checked-out branch, moved only by the run's commits.
  await runGit(['fetch', '--quiet', '--no-tags', '--refmap=', 'origin', `refs/heads/${branch}`], {
    cwd,
    env,
  });
  return (await runGit(['rev-parse', '--verify', 'FETCH_HEAD^{commit}'], { cwd })).stdout
    .toString('utf8')
    .trim();
}

/**
 * Fetches the remote branch and merges it into the worktree's HEAD (`mergeRemoteHead`): what a run
 * does when its push was refused because someone pushed meanwhile.
 */
export async function catchUp(options: Omit<MergeRemoteOptions, 'theirs'> & { env: Record<string, string> }) {
  const { env, ...merge } = options;
  const theirs = await fetchRemoteHead({ dir: options.dir, branch: options.branch, env });
  return mergeRemoteHead({ ...merge, theirs });
}

/** What `mergeRemoteHead` did. */
export type RemoteMerge =
  | { status: 'merged'; commit: string; tree: string }
  | { status: 'conflicts'; conflicts: string[] };

/** What `mergeRemoteHead` takes: a worktree on its branch at `head`, the commit to merge, the identity. */
export interface MergeRemoteOptions {
  dir: string;
  /** The worktree's HEAD, which it must still be (moved by compare-and-swap). */
  head: string;
  /** The remote branch's commit. */
  theirs: string;
  branch: string;
  authorName: string;
  authorEmail: string;
}

/**
 * Merges `theirs` into the worktree's HEAD when it merges cleanly and moves HEAD to the merge
 * commit; with conflicts, nothing moves and the files are named (no conflict marker is ever
 * pushed onto someone else's work).
 */
export async function mergeRemoteHead(options: MergeRemoteOptions): Promise<RemoteMerge> {
  const { dir: cwd, head, theirs, branch } = options;
  const merged = await runGit(
    ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', head, theirs],
    {
      cwd,
      acceptExitCodes: [1],
    },
  );
  const [tree = '', ...files] = merged.stdout.toString('utf8').split('\0');
  if (merged.exitCode === 1)
    return { status: 'conflicts', conflicts: [...new Set(files.filter(Boolean))].sort() };
  const commit = (
    await runGit(['commit-tree', '--no-gpg-sign', tree, '-p', head, '-p', theirs], {
      cwd,
      env: {
        GIT_AUTHOR_NAME: options.authorName,
        GIT_AUTHOR_EMAIL: options.authorEmail,
        GIT_COMMITTER_NAME: options.authorName,
        GIT_COMMITTER_EMAIL: options.authorEmail,
      },
      input: `Merge the commits pushed to ${branch} while the job ran\n`,
    })
  ).stdout
    .toString('utf8')
    .trim();
  await runGit(['update-ref', '-m', 'agentjobs: merge the remote branch', 'HEAD', commit, head], { cwd });
  return { status: 'merged', commit, tree };
}
