/**
 * The service's answer on a comment that called it (DESIGN section 3, automations: "the service
 * answers on the thread with the job's link"): a comment on the pull request or issue with the
 * job's dashboard page and, once it has one, its pull request.
 */

import type { CodeHosts } from '../hosts/types.js';
import type { ThreadReply } from '../jobs/host-events.js';
import type { Store } from '../store/store.js';

/** What a reply needs: the projects, their hosts, and where the dashboard is served. */
export interface ThreadReplierOptions {
  store: Store;
  hosts: CodeHosts;
  /** The server's public URL; a function since it is known only once the server listens. */
  publicUrl: () => string;
}

/** The text of a reply: the job's page, and its pull request when it has one. */
export function threadReplyBody(publicUrl: string, reply: ThreadReply): string {
  const page = `${publicUrl}/ui/projects/${reply.projectId}/jobs/${reply.job.id}`;
  const pullRequest = reply.job.prLink ? `\n\nPull request: ${reply.job.prLink}` : '';
  return `On it: ${page}${pullRequest}`;
}

/** Posts replies through the project's code host; throws what the host throws (the caller logs it). */
export function threadReplier(options: ThreadReplierOptions): (reply: ThreadReply) => Promise<void> {
  return async (reply) => {
    const project = await options.store.projects.get(reply.projectId);
    if (!project) return;
    const body = threadReplyBody(options.publicUrl(), reply);
    await options.hosts(project.host).commentOnThread(project, reply.target, body);
  };
}
