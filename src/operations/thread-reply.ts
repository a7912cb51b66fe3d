/**
 * The service's answer on the thread of a comment that called it (docs/automations.md): the job the
 * comment started or continued, or what a command on the job's pull request did. Posting it is the
 * code host's (`background/thread-replies.ts`); a reply that fails is logged, and what the comment
 * started stands.
 */
import type { CommentEvent, ReceivedHostEvent, RepositoryMatch } from '../domain/host-event.js';
import type { Job } from '../domain/job.js';

/** What a reply on a comment's thread is about: the thread (in its repository), and the job the comment started or continued. */
export interface ThreadReply {
  projectId: string;
  target: { repository: RepositoryMatch; type: 'pull_request' | 'issue'; number: number };
  job: Job;
  /** What a command on the job's pull request did, in a sentence; absent for a comment that started or continued the job. */
  said?: string;
}

/** What an answer needs: the poster (absent: the service answers nothing) and a log for its failures. */
export interface ThreadReplyDeps {
  reply?: ((reply: ThreadReply) => Promise<void>) | undefined;
  log?: { warn(details: object, message: string): void } | undefined;
}

/** Answers on the comment's thread (`said`: what a command did); a reply that fails is logged. */
export async function answerOnThread(
  deps: ThreadReplyDeps,
  received: ReceivedHostEvent,
  event: CommentEvent,
  job: Job,
  said?: string,
): Promise<void> {
  if (!deps.reply) return;
  // The thread's own repository: a context repository's pull request is answered there.
  const target = { repository: event.repository, type: event.target.type, number: event.target.number };
  const reply = { projectId: received.projectId, target, job, ...(said ? { said } : {}) };
  await deps.reply(reply).catch((error: unknown) => {
    deps.log?.warn(
      { err: error, projectId: received.projectId, jobId: job.id },
      'could not answer on the thread of a comment',
    );
  });
}
