/**
 * Local pull requests notice what was done to their branches outside agentjobs (docs/code-hosts.md):
 * a head branch merged into its base with git by hand shows merged, a deleted head branch shows
 * closed. Checked when a pull request is read (the dashboard's pages), not by a background scan:
 * two git commands per open pull request, and nothing to keep in step.
 */
import { fileURLToPath } from 'node:url';
import type { Project } from '../domain/project.js';
import type { PullRequest } from '../domain/pull-request.js';
import { normalizeRepository } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { CodeHostError, type PullRequestRecords } from './types.js';

/** The folder of a local project's repository; a `CodeHostError` when it is not on this machine. */
export function localRepositoryPath(project: Project): string {
  const repository = normalizeRepository(project.repository);
  const cwd = repository.startsWith('file://') ? fileURLToPath(repository) : repository;
  if (/^[a-z][a-z0-9+.-]*:/i.test(cwd))
    throw new CodeHostError('The repository of a local project must be on this machine.');
  return cwd;
}

/**
 * The pull request as its repository has it now: an open one whose head (the branch, or the commit
 * it last pointed at when the branch is gone) is in its base is marked merged; one whose head
 * branch is gone otherwise is marked closed. Anything else, or a repository that cannot be read,
 * leaves it as it was.
 */
export async function noticeOutsideChanges(
  project: Project,
  pullRequest: PullRequest,
  records: PullRequestRecords,
): Promise<PullRequest> {
  if (project.host !== 'local' || pullRequest.state !== 'open') return pullRequest;
  let cwd: string;
  try {
    cwd = localRepositoryPath(project);
  } catch {
    return pullRequest;
  }
  const ok = (args: string[]) =>
    runGit(args, { cwd, timeoutMs: 10_000 }).then(
      (result) => result.stdout.toString('utf8').trim() || true,
      () => false as const,
    );
  const base = await ok([
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${pullRequest.baseBranch}^{commit}`,
  ]);
  // No base (or no repository): nothing can be said.
  if (base === false) return pullRequest;
  const head = await ok([
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${pullRequest.headBranch}^{commit}`,
  ]);
  const tip = typeof head === 'string' ? head : pullRequest.headSha;
  let state: 'merged' | 'closed' | null = null;
  if (tip && (await ok(['merge-base', '--is-ancestor', tip, String(base)])) !== false) state = 'merged';
  else if (head === false) state = 'closed';
  if (!state) return pullRequest;
  // Another reader may have marked it first; either way the record now says what happened.
  return (await records.finish(project.id, pullRequest.number, state)) ?? { ...pullRequest, state };
}
