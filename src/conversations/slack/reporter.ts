/**
 * The news of a job asked for in Slack, posted in its thread (docs/slack.md#what-the-app-does):
 * when the job finishes, its pull request and summary, or the failure and what to do; again after
 * each follow-up's finish. A background loop at the poll interval finds the threads whose job
 * finished since the last news; one process takes each report (`markReported`) and posts it, and
 * gives it back when the post failed, for the next pass.
 */
import { type BackgroundLoop, backgroundLoop } from '../../background/loop.js';
import type { Job } from '../../domain/job.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import type { SlackApi } from './client.js';
import { jobPage } from './handle.js';

/** The thread's news of a finished job. */
export function finishText(job: Job, page: string): string {
  if (job.status === 'failed') {
    const why = job.error?.message ?? 'it stopped';
    return `The job failed: ${why}\nWhat to do: reply in this thread to try again with more to go on, or see ${page}`;
  }
  const summary = job.summary ? `\n\n${job.summary}` : '';
  if (job.prLink) return `Done: ${job.prLink}${summary}`;
  return `Done, and nothing needed changing.${summary}\n${page}`;
}

export function createSlackReporter(options: {
  store: Store;
  api: SlackApi;
  logger: Logger;
  publicUrl: () => string;
  pollMs: number;
}): BackgroundLoop {
  const { store, api } = options;
  return backgroundLoop({
    name: 'posting job news to Slack',
    logger: options.logger,
    pollMs: options.pollMs,
    async pass() {
      const due = await store.slack.unreported(20);
      for (const thread of due) {
        if (!(await store.slack.markReported(thread, thread.completedAt))) continue;
        const job = await store.jobs.get(thread.projectId, thread.jobId);
        if (!job) continue;
        try {
          await api.post(
            thread.channelId,
            thread.threadTs,
            finishText(job, jobPage(options.publicUrl(), job.projectId, job.id)),
          );
        } catch (error) {
          await store.slack.unreport(thread);
          throw error;
        }
      }
      return { more: due.length === 20 };
    },
  });
}
