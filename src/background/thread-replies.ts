/**
 * The service and a comment's thread (docs/automations.md): its answer on a comment that
 * called it ("the service answers on the thread with the job's link"), and the question it asks
 * the host before such a comment starts work (does the author have write access?). Both go to the
 * thread's own repository: the content repository through the project's host and token, a context
 * repository through its own host and token.
 */

import type { CommentEvent, RepositoryMatch } from '../domain/host-event.js';
import type { Project } from '../domain/project.js';
import { type CodeHost, CodeHostError, type CodeHosts, type ThreadRepository } from '../hosts/types.js';
import type { Logger } from '../log.js';
import type { ThreadReply } from '../operations/host-events.js';
import type { Store } from '../store/store.js';

/** What a reply needs: the projects, their hosts, and where the dashboard is served. */
export interface ThreadReplierOptions {
  store: Store;
  hosts: CodeHosts;
  /** The server's public URL; a function since it is known only once the server listens. */
  publicUrl: () => string;
}

/** The text of a reply: what was done (a command's), the job's page, and its pull request when it has one. */
export function threadReplyBody(publicUrl: string, reply: ThreadReply): string {
  const page = `${publicUrl}/ui/projects/${reply.projectId}/jobs/${reply.job.id}`;
  // A command is answered on the job's own pull request: its link would point at the thread itself.
  if (reply.said) return `${reply.said}\n\nJob: ${page}`;
  const pullRequest = reply.job.prLink ? `\n\nPull request: ${reply.job.prLink}` : '';
  return `On it: ${page}${pullRequest}`;
}

/** Where a thread is: its project, the host that serves its repository, and the repository. */
interface ThreadPlace {
  project: Project;
  host: CodeHost;
  repository: ThreadRepository;
}

/**
 * The place of a thread in `repository` of the project; null when the project, or the context
 * repository, is gone since the event came.
 */
async function threadPlace(
  options: Pick<ThreadReplierOptions, 'store' | 'hosts'>,
  projectId: string,
  repository: RepositoryMatch,
): Promise<ThreadPlace | null> {
  const project = await options.store.projects.get(projectId);
  if (!project) return null;
  if (repository.kind === 'content')
    return { project, host: options.hosts(project.host), repository: { kind: 'content' } };
  const context = (await options.store.contextRepositories.list(projectId)).find(
    (candidate) => candidate.name === repository.name,
  );
  if (!context) return null;
  return {
    project,
    host: options.hosts(context.host),
    repository: { kind: 'context', name: context.name, repository: context.repository },
  };
}

/** Posts replies through the thread's code host; throws what the host throws (the caller logs it). */
export function threadReplier(options: ThreadReplierOptions): (reply: ThreadReply) => Promise<void> {
  return async (reply) => {
    const place = await threadPlace(options, reply.projectId, reply.target.repository);
    if (!place) return;
    const body = threadReplyBody(options.publicUrl(), reply);
    const { type, number } = reply.target;
    await place.host.commentOnThread(place.project, { repository: place.repository, type, number }, body);
  };
}

/**
 * Asks the thread's host whether a comment's author may write to its repository. A refusal the
 * host gives for good (no token for a context repository, a token that may not ask) is logged and
 * proves nothing, so the comment starts nothing; an outage is thrown, for the event to be tried again.
 */
export function commentAuthorChecker(
  options: Pick<ThreadReplierOptions, 'store' | 'hosts'> & { logger: Logger },
): (projectId: string, event: CommentEvent) => Promise<boolean> {
  return async (projectId, event) => {
    const place = await threadPlace(options, projectId, event.repository);
    if (!place) return false;
    const author = { username: event.author, id: event.authorId ?? null };
    try {
      const permission = await place.host.authorPermission(place.project, place.repository, author);
      if (!permission.canWrite)
        options.logger.info(
          { projectId, author: event.author, role: permission.role, comment: event.url },
          'comment author may not write to the repository: the comment starts nothing',
        );
      return permission.canWrite;
    } catch (error) {
      if (!(error instanceof CodeHostError) || error.isRetryable) throw error;
      options.logger.warn(
        { err: error, projectId, author: event.author, comment: event.url },
        "could not read a comment author's permission: the comment starts nothing",
      );
      return false;
    }
  };
}
