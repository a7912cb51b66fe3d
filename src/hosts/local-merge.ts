/**
 * Merging a local pull request into its base, in the project's repository itself (DESIGN section 6).
 * A merge must never leave a working copy inconsistent, so it is refused while the base branch is
 * checked out in any working tree of the repository (the user merges there with git, or uses a bare
 * repository). Otherwise nothing is checked out: a fast-forward when the base has not moved, else a
 * merge commit built by `git merge-tree --write-tree` (git 2.38+) and `commit-tree`, and the base
 * moves by compare-and-swap, so a concurrent push to it is never overwritten. Conflicts are refused.
 */
import { fileURLToPath } from 'node:url';
import type { Project } from '../domain/project.js';
import type { PullRequest } from '../domain/pull-request.js';
import { normalizeRepository } from '../git/mirror.js';
import { GitError, runGit } from '../git/run.js';
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
  const repository = normalizeRepository(project.repository);
  const cwd = repository.startsWith('file://') ? fileURLToPath(repository) : repository;
  if (/^https?:/i.test(cwd))
    throw new CodeHostError('The repository of a local project must be on this machine.');
  const git = async (...args: string[]) => (await runGit(args, { cwd })).stdout.toString('utf8').trim();
  const base = `refs/heads/${pullRequest.baseBranch}`;
  const head = `refs/heads/${pullRequest.headBranch}`;

  const worktrees = await git('worktree', 'list', '--porcelain');
  if (worktrees.split('\n').includes(`branch ${base}`)) {
    throw new CodeHostError(
      `${pullRequest.baseBranch} is checked out in a working copy of the repository; merging here would leave it out of date. Merge with git in that working copy, or use a bare repository.`,
    );
  }
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
      const tree = await runGit(['merge-tree', '--write-tree', '--no-messages', baseSha, headSha], {
        cwd,
      }).then(
        (result) => result.stdout.toString('utf8').split('\n')[0]?.trim() ?? '',
        (error: unknown) => {
          if (error instanceof GitError && error.exitCode === 1) {
            throw new CodeHostError(
              `Pull request #${pullRequest.number} conflicts with ${pullRequest.baseBranch}; it cannot be merged automatically.`,
            );
          }
          throw error;
        },
      );
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
    // Compare-and-swap: fails if the base moved since it was read.
    await runGit(['update-ref', '-m', `agentjobs: merge #${pullRequest.number}`, base, sha, baseSha], {
      cwd,
    }).catch(() => {
      throw new CodeHostError(`${pullRequest.baseBranch} moved during the merge; try again.`);
    });
  }
  const merged = await options.pullRequests.finish(project.id, pullRequest.number, 'merged');
  if (!merged) throw new CodeHostError(`Pull request #${pullRequest.number} was closed meanwhile.`);
  return { pullRequest: merged, sha, fastForward };
}
