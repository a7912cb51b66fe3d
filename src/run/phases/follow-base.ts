/**
 * A follow-up works on what the base branch is now, not on what it was (docs/api.md):
 * - when the job's pull request was merged or closed, the run starts a new branch from the base
 *   (`nextJobBranch`) and publishing opens a new pull request on it; the job's `source.ref` moves
 *   to it, and the earlier pull request stays in the job's events;
 * - else the base is merged into the job's branch before the agent runs (git/merge.ts): committed
 *   when clean; with conflicts, committed with the markers, the files named to the agent, and the
 *   `conflicts` check refusing to publish while a marker is left;
 * - a run asked to `rebase` (a command on the job's pull request) makes the branch again on the
 *   base instead, with the job's changes re-applied in one commit (git/merge.ts), and publishing
 *   overwrites the branch only while it is still where the run found it.
 */
import { SERVICE_NOTE_OPENING } from '../../agent/service-notes.js';
import { nextJobBranch } from '../../domain/job.js';
import { type PullRequestState, pullRequestNumber } from '../../domain/pull-request.js';
import type { BaseMerge } from '../../git/merge.js';
import type { Workspace } from '../../git/workspace.js';
import type { LocatedRun } from './state.js';

/** The branch a run works on, and why it is a new one when it is. */
export interface RunBranch {
  branch: string;
  /** Set when the run starts a new branch: the pull request that was merged or closed. */
  replaces: { number: number; state: Exclude<PullRequestState, 'open'> } | null;
}

/**
 * The branch of the run: the job's, unless its pull request (on that branch) was merged or
 * closed, in which case the job moves to a new branch, to be made from the base. A retry of such a
 * run finds the job on the new branch already and keeps it.
 */
export async function runBranch(run: LocatedRun): Promise<RunBranch> {
  const { job, project } = run;
  const current = { branch: job.source.ref, replaces: null };
  if (project.publish !== 'pull_request' || !job.prLink) return current;
  const number = pullRequestNumber(job.prLink);
  if (number === null) return current;
  const pull = await run.host.pullRequestState({ project, number, signal: run.control.main });
  // What the automation's runs show of this pull request (the local host's records say it themselves).
  if (pull && project.host !== 'local')
    await run.deps.store.hostPullRequests.recordHostState(project.id, number, pull.state);
  if (!pull || pull.state === 'open' || pull.branch !== job.source.ref) return current;
  const branch = nextJobBranch(job.id, job.prompt, job.source.ref);
  await run.deps.store.queue.moveBranch(run.lease, branch);
  run.job = { ...job, source: { ...job.source, ref: branch } };
  run.control.log.info({ branch, replaces: number, state: pull.state }, 'follow-up starts a new branch');
  return { branch, replaces: { number, state: pull.state } };
}

/**
 * Merges the base into the workspace's branch as the bot identity, records the merge commit as a
 * `commit` event, and returns it with what to tell the agent (null when nothing is to be said).
 */
export async function mergeBaseFor(
  run: LocatedRun,
  workspace: Workspace,
  branch: RunBranch,
  rebuild = false,
): Promise<{ merge: BaseMerge; note: string | null }> {
  const { config, store } = run.deps;
  const base = run.job.baseRef;
  const identity = { authorName: config.worker.gitAuthorName, authorEmail: config.worker.gitAuthorEmail };
  const merge = await workspace.mergeBase(base, identity, rebuild);
  if (merge.commit) {
    await store.queue.appendEvent(run.lease, 'commit', {
      sha: merge.commit,
      files: merge.conflicts,
      branch: workspace.branch,
      merge: { base, conflicts: merge.conflicts },
    });
  }
  return { merge, note: noteFor(base, workspace.branch, branch, merge) };
}

/** What the agent is told, before the follow-up's message, about where it now stands. */
function noteFor(base: string, name: string, branch: RunBranch, merge: BaseMerge): string | null {
  const said: string[] = [];
  if (branch.replaces) {
    const { number, state } = branch.replaces;
    said.push(
      `Pull request #${number} of this job was ${state}, so this follow-up works on a new branch, ${name}, made from ${base} as it is now, and will open a new pull request. ${
        state === 'merged'
          ? `The earlier changes are in ${base} already.`
          : `The earlier changes were not merged, so they are not on this branch.`
      }`,
    );
  } else if (merge.rebuiltFrom) {
    said.push(
      `As asked, ${name} was made again from ${base} as it is now, with your earlier changes re-applied in one commit.`,
    );
  } else if (merge.status === 'merged') {
    said.push(
      `${base} had moved on; it was merged into ${name} first, so the files are as ${base} has them now, with your earlier changes.`,
    );
  }
  if (merge.status === 'conflicts') {
    const files = merge.conflicts.map((file) => `- ${file}`).join('\n');
    said.push(
      `${base} had moved on, and ${merge.rebuiltFrom ? 're-applying your changes on it' : `merging it into ${name}`} conflicted in these files, which now hold git's conflict markers (lines \`<<<<<<<\`, \`=======\`, \`>>>>>>>\`):\n${files}\nResolve each one first: read it, keep what both sides meant, and remove every marker line. Nothing is published while a marker is left.`,
    );
  }
  return said.length > 0 ? `${SERVICE_NOTE_OPENING}, before your next message: ${said.join('\n\n')})` : null;
}
