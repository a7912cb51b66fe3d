/**
 * Merging a local pull request into its base, in the project's repository itself (docs/code-hosts.md).
 * The new head of the base is built without a checkout: the head itself when the base has not moved
 * (a fast-forward), else a merge commit built by `git merge-tree --write-tree` (git 2.38+) and
 * `commit-tree`. Conflicts are refused. Either way the new head descends from the base as it was
 * read, so moving the base is a fast-forward to it:
 * - when no working tree has the base checked out, by `update-ref` with the old value
 *   (compare-and-swap: a concurrent push is never overwritten);
 * - when one has (a clone with `main` checked out, the newcomer's case), by `git merge --ff-only` in
 *   that working tree, so the branch, its index and its files move together as if the user had
 *   merged there. git refuses when uncommitted changes there would be overwritten, and when the base
 *   moved meanwhile (no longer a fast-forward); changes to other files stay as they were.
 */
import type { Project } from '../domain/project.js';
import type { PullRequest } from '../domain/pull-request.js';
import { GitError, runGit } from '../git/run.js';
import { localRepositoryPath } from './local-sync.js';
import { CodeHostError, type PullRequestRecords } from './types.js';

/** What a merge takes: the project, its open pull request, and where the records are. */
export interface MergeOptions {
  project: Project;
  pullRequest: PullRequest;
  pullRequests: PullRequestRecords;
  /** The bot identity of a merge commit. */
  authorName: string;
  authorEmail: string;
}

/**
 * A pull request that conflicts with its base: `files` are those that conflict. The way forward
 * is a follow-up to its job, which merges the base and hands the conflicts to the agent.
 */
export class MergeConflictError extends CodeHostError {
  override name = 'MergeConflictError';
  readonly files: string[];
  constructor(pullRequest: PullRequest, files: string[]) {
    super(
      `Pull request #${pullRequest.number} conflicts with ${pullRequest.baseBranch} in ${files.length} file${files.length === 1 ? '' : 's'} (${files.join(', ')}); it cannot be merged automatically.${pullRequest.jobId ? ` Send a follow-up to its job (${pullRequest.jobId}): the agent will merge ${pullRequest.baseBranch} and resolve them.` : ''}`,
    );
    this.files = files;
  }
}

/** A merge done. */
export interface MergeResult {
  pullRequest: PullRequest;
  /** The base branch's new head. */
  sha: string;
  fastForward: boolean;
}

export async function mergeLocalPullRequest(options: MergeOptions): Promise<MergeResult> {
  const { project, pullRequest } = options;
  if (project.host !== 'local') throw new CodeHostError('Only local pull requests are merged here.');
  if (pullRequest.state !== 'open')
    throw new CodeHostError(`Pull request #${pullRequest.number} is not open.`);
  const cwd = localRepositoryPath(project);
  const git = async (...args: string[]) => (await runGit(args, { cwd })).stdout.toString('utf8').trim();
  const base = `refs/heads/${pullRequest.baseBranch}`;
  const head = `refs/heads/${pullRequest.headBranch}`;

  const workingCopy = checkedOutIn(await git('worktree', 'list', '--porcelain'), base);
  const baseSha = await git('rev-parse', '--verify', `${base}^{commit}`);
  const headSha = await git('rev-parse', '--verify', `${head}^{commit}`);
  const isAncestor = (a: string, b: string) =>
    runGit(['merge-base', '--is-ancestor', a, b], { cwd }).then(
      () => true,
      () => false,
    );

  let sha = baseSha;
  let fastForward = false;
  if (!(await isAncestor(headSha, baseSha))) {
    if (await isAncestor(baseSha, headSha)) {
      sha = headSha;
      fastForward = true;
    } else {
      const merged = await runGit(
        ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', baseSha, headSha],
        { cwd, acceptExitCodes: [1] },
      );
      const [tree = '', ...files] = merged.stdout.toString('utf8').split('\0');
      if (merged.exitCode === 1)
        throw new MergeConflictError(pullRequest, [...new Set(files.filter(Boolean))]);
      const message = `Merge pull request #${pullRequest.number}: ${pullRequest.title}\n\nMerges ${pullRequest.headBranch} into ${pullRequest.baseBranch}.\n`;
      sha = (
        await runGit(['commit-tree', '--no-gpg-sign', tree, '-p', baseSha, '-p', headSha], {
          cwd,
          input: message,
          env: {
            GIT_AUTHOR_NAME: options.authorName,
            GIT_AUTHOR_EMAIL: options.authorEmail,
            GIT_COMMITTER_NAME: options.authorName,
            GIT_COMMITTER_EMAIL: options.authorEmail,
          },
        })
      ).stdout
        .toString('utf8')
        .trim();
    }
    if (workingCopy) await fastForwardWorkingCopy(workingCopy, pullRequest, sha);
    else {
      // Compare-and-swap: fails if the base moved since it was read.
      await runGit(['update-ref', '-m', `agentjobs: merge #${pullRequest.number}`, base, sha, baseSha], {
        cwd,
      }).catch(() => {
        throw new CodeHostError(`${pullRequest.baseBranch} moved during the merge; try again.`);
      });
    }
  }
  const merged = await options.pullRequests.finish(project.id, pullRequest.number, 'merged');
  if (!merged) throw new CodeHostError(`Pull request #${pullRequest.number} was closed meanwhile.`);
  return { pullRequest: merged, sha, fastForward };
}

/** The tree of a merge of `head` into `base` (with markers where they conflict), and the files that conflict. */
async function mergeTree(
  cwd: string,
  base: string,
  head: string,
): Promise<{ tree: string; conflicts: string[] }> {
  const merged = await runGit(
    ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', base, head],
    {
      cwd,
      acceptExitCodes: [1],
    },
  );
  const [tree = '', ...files] = merged.stdout.toString('utf8').split('\0');
  return { tree, conflicts: merged.exitCode === 1 ? [...new Set(files.filter(Boolean))].sort() : [] };
}

/**
 * The files that would conflict if the open `pullRequest` were merged into its base now, so its
 * page can say so before anyone tries; empty when it merges cleanly or the repository cannot tell.
 */
export async function localMergeConflicts(project: Project, pullRequest: PullRequest): Promise<string[]> {
  if (project.host !== 'local' || pullRequest.state !== 'open') return [];
  try {
    const cwd = localRepositoryPath(project);
    const base = `refs/heads/${pullRequest.baseBranch}`;
    const head = `refs/heads/${pullRequest.headBranch}`;
    return (await mergeTree(cwd, base, head)).conflicts;
  } catch {
    return [];
  }
}

/** The working tree that has `ref` checked out, from `git worktree list --porcelain`, or null. */
export function checkedOutIn(porcelain: string, ref: string): string | null {
  for (const entry of porcelain.split('\n\n')) {
    const lines = entry.split('\n');
    const tree = lines.find((line) => line.startsWith('worktree '))?.slice('worktree '.length);
    if (tree && !lines.includes('bare') && lines.includes(`branch ${ref}`)) return tree;
  }
  return null;
}

/**
 * Moves the branch checked out in `workingCopy` to `sha`, a descendant of it, with its index and
 * files, as `git merge` there would. Refusals name what to do in that working copy.
 */
async function fastForwardWorkingCopy(workingCopy: string, pullRequest: PullRequest, sha: string) {
  try {
    await runGit(['merge', '--ff-only', '--no-stat', '--no-autostash', '--no-verify-signatures', sha], {
      cwd: workingCopy,
    });
  } catch (error) {
    if (!(error instanceof GitError) || error.reason !== 'exit') throw error;
    const { stderr } = error;
    const files = stderr
      .split('\n')
      .filter((line) => /^\t/.test(line))
      .map((line) => line.trim());
    const where = `${pullRequest.baseBranch} is checked out in ${workingCopy}`;
    if (/would be overwritten|not uptodate|overwritten by merge/i.test(stderr)) {
      throw new CodeHostError(
        `Not merged: ${where}, and uncommitted changes there (${files.length ? files.join(', ') : 'files'}) would be overwritten by the merge. Commit them, or stash them (git stash -u), in that working copy, then merge again.`,
      );
    }
    if (/not possible to fast-forward|diverging/i.test(stderr)) {
      throw new CodeHostError(`${pullRequest.baseBranch} moved during the merge; try again.`);
    }
    throw new CodeHostError(
      `Not merged: ${where}, and git refused to update it there: ${stderr.split('\n')[0] ?? ''} Finish or undo what is under way in that working copy (git status says what), then merge again.`,
    );
  }
}
