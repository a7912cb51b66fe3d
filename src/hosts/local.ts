/**
 * The `local` code host (docs/code-hosts.md): the project's repository is a git repository on this
 * machine (bare or a working copy), the job branch is pushed into it like into any remote, and the
 * pull request is a record in the database that the dashboard shows at
 * `{publicUrl}/ui/projects/{projectId}/pulls/{number}`.
 *
 * Pushing a job branch into a working copy is safe: git refuses to update the branch checked out
 * there, and job branches are never that branch.
 */
import { fileURLToPath } from 'node:url';
import type { Project } from '../domain/project.js';
import { runGit } from '../git/run.js';
import { noticeOutsideChanges } from './local-sync.js';
import type { CodeHost, HostCheck, PullRequestInput, PullRequestLink, PullRequestRecords } from './types.js';

/** What the local host is given. */
export interface LocalHostOptions {
  pullRequests: PullRequestRecords;
  /**
   * The server's public URL, without a trailing slash; a function when it is known only once the
   * server listens (an ephemeral port).
   */
  publicUrl: string | (() => string);
}

/** The dashboard page of a local pull request. */
export function localPullRequestUrl(publicUrl: string, projectId: string, number: number): string {
  return `${publicUrl}/ui/projects/${encodeURIComponent(projectId)}/pulls/${number}`;
}

/** git's answer in the repository, or null when it refuses. */
async function git(cwd: string, ...args: string[]): Promise<string | null> {
  try {
    return (await runGit(args, { cwd, timeoutMs: 10_000 })).stdout.toString('utf8').trim();
  } catch {
    return null;
  }
}

/** The folder of a local project's repository, which may be named by a file:// URL. */
const repositoryPath = (project: Project) =>
  project.repository.startsWith('file://') ? fileURLToPath(project.repository) : project.repository;

/**
 * What a local project needs: a git repository at its path, its base branch, and for `push`
 * projects a repository that accepts a push to the base. A base checked out in a working copy is
 * said (a merge updates that working copy), but it is not a failure.
 */
async function checkLocal(project: Project): Promise<HostCheck[]> {
  const cwd = repositoryPath(project);
  if ((await git(cwd, 'rev-parse', '--git-dir')) === null)
    return [{ name: 'read', ok: false, detail: `${cwd} is not a git repository this server can read.` }];
  const checks: HostCheck[] = [{ name: 'read', ok: true, detail: `${cwd} is a git repository.` }];
  const base = `refs/heads/${project.baseBranch}`;
  const hasBase = (await git(cwd, 'rev-parse', '--verify', '--quiet', `${base}^{commit}`)) !== null;
  checks.push({
    name: 'base',
    ok: hasBase,
    detail: hasBase
      ? `The base branch ${project.baseBranch} exists.`
      : `There is no branch ${project.baseBranch}: create it, or change the project's base branch.`,
  });
  const worktrees = (await git(cwd, 'worktree', 'list', '--porcelain')) ?? '';
  const checkedOut = worktrees.split('\n').includes(`branch ${base}`);
  if (project.publish === 'push' && checkedOut) {
    const mode = await git(cwd, 'config', '--get', 'receive.denyCurrentBranch');
    checks.push({
      name: 'push',
      ok: mode === 'updateInstead',
      detail:
        mode === 'updateInstead'
          ? 'Pushes to the checked-out base update the working copy (receive.denyCurrentBranch=updateInstead).'
          : `${project.baseBranch} is checked out here, so git refuses pushes to it: run \`git config receive.denyCurrentBranch updateInstead\` in ${cwd}, or use a bare repository.`,
    });
  } else if (project.publish === 'pull_request') {
    checks.push({
      name: 'pull_request',
      ok: true,
      detail: checkedOut
        ? `Pull requests open here and can be merged from the dashboard; ${project.baseBranch} is checked out here, so a merge updates that working copy too, and is refused while uncommitted changes there would be overwritten.`
        : 'Pull requests open here and can be merged from the dashboard.',
    });
  }
  return checks;
}

export function createLocalHost(options: LocalHostOptions): CodeHost {
  const { publicUrl: url } = options;
  const publicUrl = typeof url === 'string' ? () => url : url;
  return {
    kind: 'local',
    check: checkLocal,
    // A local repository needs no credentials.
    gitEnv: async () => ({}),
    // A local repository has no comment threads (its events come from no host), so nothing to answer on.
    commentOnThread: async () => {},
    // Nor accounts: no one's permission to vouch for (an automation's `allowedAuthors` still can).
    authorPermission: async () => ({ canWrite: false, role: 'none' }),
    async closePullRequest({ project, branch }) {
      const pull = await options.pullRequests.getByBranch(project.id, branch);
      if (pull?.state !== 'open') return null;
      const closed = await options.pullRequests.finish(project.id, pull.number, 'closed');
      return closed
        ? { url: localPullRequestUrl(publicUrl(), project.id, closed.number), number: closed.number }
        : null;
    },
    async pullRequestState({ project, number }) {
      const recorded = await options.pullRequests.get(project.id, number);
      if (!recorded) return null;
      // A branch merged into its base with git by hand counts as merged, as the dashboard shows it.
      const pull = await noticeOutsideChanges(project, recorded, options.pullRequests);
      return { number, state: pull.state, branch: pull.headBranch };
    },
    async openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestLink> {
      // Where the changes start, kept so that the page of a merged pull request still shows them.
      const mergeBase = await runGit(['merge-base', `refs/heads/${input.base}`, input.headSha], {
        cwd: repositoryPath(input.project),
        timeoutMs: 10_000,
      }).then(
        (result) => result.stdout.toString('utf8').trim() || null,
        () => null,
      );
      const { pullRequest } = await options.pullRequests.openOrUpdate({
        projectId: input.project.id,
        jobId: input.job.id,
        headBranch: input.branch,
        baseBranch: input.base,
        title: input.title,
        body: input.body,
        draft: input.draft,
        headSha: input.headSha,
        baseSha: mergeBase,
      });
      return {
        url: localPullRequestUrl(publicUrl(), input.project.id, pullRequest.number),
        number: pullRequest.number,
      };
    },
  };
}
