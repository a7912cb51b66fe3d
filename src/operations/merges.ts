/**
 * A local project's pull requests, merged or closed the same way from every entry point (the
 * dashboard's Merge and Close buttons, `agentjobs pr merge|close`). The rules live here: only a
 * local project's pull requests are merged here (a remote host merges its own), a pull request is
 * named by its number or by its job, it is read as the repository has it now (a merge done with
 * git by hand shows), and only an open one is merged or closed. A refusal is typed:
 * `project_not_found`, `job_not_found`, `not_found`, `invalid_request` (not a local project, or
 * a bad number), or a `MergeRefused` (`invalid_transition`) whose `refusal` says why.
 */
import { AppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { PullRequest } from '../domain/pull-request.js';
import { MergeConflictError, type MergeResult, mergeLocalPullRequest } from '../hosts/local-merge.js';
import { noticeOutsideChanges } from '../hosts/local-sync.js';
import { CodeHostError } from '../hosts/types.js';
import type { Store } from '../store/store.js';

/** What the merge operations need: the records, and who the merge commit is by. */
export interface MergeDeps {
  store: Pick<Store, 'projects' | 'jobs' | 'pullRequests'>;
  author: { name: string; email: string };
}

/** A pull request as a caller names it: its number, or the job whose work it holds. */
export type PullRequestRef = { number: number } | { jobId: string };

/**
 * Why a merge or a close did not happen: the pull request is no longer open (`not_open`, its
 * `state` says what it is), it conflicts with its base (`conflict`, with the `files`), or the
 * repository is in the way (`not_merged`: uncommitted changes, the base moved; the message says).
 */
export class MergeRefused extends AppError {
  override name = 'MergeRefused';
  constructor(
    readonly refusal: 'not_open' | 'conflict' | 'not_merged',
    message: string,
    readonly pullRequest: PullRequest,
    readonly files: string[] = [],
  ) {
    super('invalid_transition', message);
  }
}

/** The project, which must be local. @throws AppError `project_not_found`, `invalid_request` */
async function localProject(store: MergeDeps['store'], projectId: string): Promise<Project> {
  const project = await store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  if (project.host !== 'local')
    throw new AppError(
      'invalid_request',
      `Project ${project.id} publishes to ${project.host}; its pull requests are merged there.`,
    );
  return project;
}

/** The pull request `ref` names, as the repository has it now (a merge by hand shows). */
export async function findPullRequest(
  store: MergeDeps['store'],
  projectId: string,
  ref: PullRequestRef,
): Promise<{ project: Project; pull: PullRequest }> {
  const project = await localProject(store, projectId);
  let pull: PullRequest | undefined;
  if ('jobId' in ref) {
    const job = await store.jobs.get(project.id, ref.jobId);
    if (!job) throw new AppError('job_not_found', `No job ${ref.jobId} in project ${project.id}.`);
    pull = await store.pullRequests.getByBranch(project.id, job.source.ref);
    if (!pull)
      throw new AppError(
        'not_found',
        `Job ${job.id} has no pull request${job.status === 'active' ? ' yet: it is still running' : ': it changed no file'}.`,
      );
  } else {
    if (!Number.isSafeInteger(ref.number) || ref.number < 1)
      throw new AppError('invalid_request', `"${ref.number}" is not a pull request number.`);
    pull = await store.pullRequests.get(project.id, ref.number);
    if (!pull) throw new AppError('not_found', `No pull request #${ref.number} in project ${project.id}.`);
  }
  return { project, pull: await noticeOutsideChanges(project, pull, store.pullRequests) };
}

const notOpen = (pull: PullRequest) =>
  new MergeRefused('not_open', `Pull request #${pull.number} is already ${pull.state}.`, pull);

/** Merges an open pull request into its base branch. @throws MergeRefused, and `findPullRequest`'s */
export async function mergePullRequest(
  deps: MergeDeps,
  projectId: string,
  ref: PullRequestRef,
): Promise<MergeResult> {
  const { project, pull } = await findPullRequest(deps.store, projectId, ref);
  if (pull.state !== 'open') throw notOpen(pull);
  try {
    return await mergeLocalPullRequest({
      project,
      pullRequest: pull,
      pullRequests: deps.store.pullRequests,
      authorName: deps.author.name,
      authorEmail: deps.author.email,
    });
  } catch (error) {
    if (error instanceof MergeConflictError)
      throw new MergeRefused('conflict', error.message, pull, error.files);
    if (error instanceof CodeHostError) throw new MergeRefused('not_merged', error.message, pull);
    throw error;
  }
}

/** Closes an open pull request without merging it. @throws MergeRefused `not_open`, and `findPullRequest`'s */
export async function closePullRequest(
  store: MergeDeps['store'],
  projectId: string,
  ref: PullRequestRef,
): Promise<PullRequest> {
  const { project, pull } = await findPullRequest(store, projectId, ref);
  if (pull.state !== 'open') throw notOpen(pull);
  const closed = await store.pullRequests.finish(project.id, pull.number, 'closed');
  if (!closed)
    throw notOpen({
      ...pull,
      state: (await store.pullRequests.get(project.id, pull.number))?.state ?? pull.state,
    });
  return closed;
}

/** A page of a project's pull requests, newest first, each as the repository has it now. */
export async function listPullRequests(
  store: MergeDeps['store'],
  projectId: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ pullRequests: PullRequest[]; more: boolean }> {
  const project = await store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  const listed = await store.pullRequests.list(project.id, {
    limit: page.limit,
    ...(page.before ? { before: page.before } : {}),
  });
  const pullRequests = await Promise.all(
    listed.pullRequests.map((pull) => noticeOutsideChanges(project, pull, store.pullRequests)),
  );
  return { pullRequests, more: listed.more };
}
