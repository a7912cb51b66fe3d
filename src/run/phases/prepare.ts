/**
 * The first phase: find the project and its code host, fetch the mirror and the project's context
 * repositories, open the job's workspace on its branch (or its base; a new branch when its pull
 * request was merged or closed), merge the base into it or, asked to `rebase`, make it again on
 * the base (follow-base.ts), and move the job to `running`.
 */
import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { BaseMerge } from '../../git/merge.js';
import { ensureMirror } from '../../git/mirror.js';
import { Workspace } from '../../git/workspace.js';
import { removeWorktree } from '../../git/worktree.js';
import type { ContextSource } from '../agent-port.js';
import { keepWorkOnBranch } from '../keep-work.js';
import { fetchContext } from './context.js';
import { mergeBaseFor, runBranch } from './follow-base.js';
import { exists, type LocatedRun, type RunState, throwIfAborted } from './state.js';

export type { LocatedRun } from './state.js';

/** A run with its workspace open and its model and git credentials at hand. */
export type PreparedRun = LocatedRun & {
  model: LanguageModel;
  /** Credentials for git, from the host. */
  env: Record<string, string>;
  mirrorPath: string;
  workspace: Workspace;
  /** The project's context repositories, fetched for this run, at the commits it reads. */
  contextRepositories: ContextSource[];
  /** The merge of the base into the branch before the agent ran. */
  baseMerge: BaseMerge;
  /** What the agent is told before its messages about the branch it is on, or null. */
  baseNote: string | null;
};

/** Finds the job's project and its code host. */
export async function locate(run: RunState): Promise<LocatedRun> {
  const { store, hosts } = run.deps;
  const project = await store.projects.get(run.job.projectId);
  if (!project) throw new Error(`project ${run.job.projectId} not found`);
  return Object.assign(run, { project, host: hosts(project.host) });
}

/** Fetches the mirror and opens the workspace; the job is `running` after it. */
export async function prepare(run: LocatedRun): Promise<PreparedRun> {
  const { config, store } = run.deps;
  const { project, control } = run;
  // Checked first: without a model or a code host the run cannot succeed, so fail before any work.
  const model = run.deps.resolveModel(run.job.model, config);
  const env = await run.host.gitEnv(project);

  const mirrorsDir = join(config.dataDir, 'mirrors');
  const mirrorPath = join(mirrorsDir, `${project.id}.git`);
  run.mirrorPath = mirrorPath;
  // A crashed run's worktree would keep its branch out of the fetch (see git/mirror.ts).
  if (await exists(run.worktreeDir)) await removeWorktree(mirrorPath, run.worktreeDir);
  await ensureMirror({
    mirrorsDir,
    projectId: project.id,
    repository: project.repository,
    env,
    freshSince: run.began,
    signal: control.main,
  });
  const contextRepositories = await fetchContext(run);
  const branch = await runBranch(run);
  const { job } = run;
  // The branch exists after the fetch when an earlier run pushed it: a follow-up or a retry continues
  // it. A new branch (the pull request was merged or closed) starts at the base.
  const workspace = await Workspace.create({
    mirrorPath,
    dir: run.worktreeDir,
    branch: job.source.ref,
    baseRef: job.baseRef,
    startFrom: branch.replaces ? 'base' : 'branch-or-base',
  });
  run.workspace = workspace;
  throwIfAborted(control.main);
  // A `rebase` among the prompts this run starts with: the branch is made again on the base.
  const rebuild = await store.queue.rebaseWaiting(job.id);
  const { merge, note } = await mergeBaseFor(run, workspace, branch, rebuild);
  // Work kept at the cost limit is pushed to the branch: never while a conflict marker may be in it.
  run.keepWork =
    merge.status === 'conflicts'
      ? null
      : () =>
          keepWorkOnBranch({
            config,
            store,
            lease: run.lease,
            job,
            workspace,
            mirrorPath,
            env,
            redact: run.redact,
            signal: control.publishing,
            rebuiltFrom: merge.rebuiltFrom,
          });
  await store.queue.setPhase(run.lease, 'running');
  return Object.assign(run, {
    model,
    env,
    mirrorPath,
    workspace,
    contextRepositories,
    baseMerge: merge,
    baseNote: note,
  });
}
