/**
 * Automation notices in Slack (docs/automations.md#slack): an automation with `notify: { slack }`
 * has a short message posted in that channel when a run's pull request opens, when it is merged,
 * and when a run fails. A background loop at the poll interval reads what happened from the
 * database (`store.automationNotices`), records each happening once as a notice, then posts the
 * notices it claims. A notice is recorded before it is posted, so a restart loses none; it is
 * unique by what it is about, so no happening is posted twice; and a try that stopped mid-post
 * (its process died) looks in the channel for its notice's mark before it posts again.
 */
import { type BackgroundLoop, backgroundLoop } from '../../background/loop.js';
import { type NoticeDraft, type NoticeHappening, noticeText } from '../../domain/automation-slack.js';
import type { Logger } from '../../log.js';
import type { NoticeWatcher } from '../../store/automation-notices.js';
import type { Store } from '../../store/store.js';
import type { SlackApi } from './client.js';
import { jobPage } from './handle.js';

const BATCH = 20;
const MAX_ATTEMPTS = 8;
const RETRY_MS = 5_000;

export interface SlackNoticeDeps {
  store: Store;
  api: SlackApi;
  logger: Logger;
  /** Where the dashboard is served, for the job's link. */
  publicUrl: () => string;
}

/** The happenings of one automation not recorded yet, as notices. */
async function newNotices(
  deps: SlackNoticeDeps,
  { automation, since }: NoticeWatcher,
): Promise<NoticeDraft[]> {
  const channel = automation.notify.slack;
  if (!channel) return [];
  const notices = deps.store.automationNotices;
  const page = (jobId: string) => jobPage(deps.publicUrl(), automation.projectId, jobId);
  const draft = (happening: NoticeHappening, subject: string, jobId: string | null, text: string) => ({
    automationId: automation.id,
    projectId: automation.projectId,
    jobId,
    happening,
    subject,
    channel,
    text,
  });
  const jobs = await notices.jobsSince(automation.id, since);
  const merged = await notices.mergedSince(automation, since);
  const failedRuns = await notices.failedRunsSince(automation.id, since);
  const textOf = (
    happening: NoticeHappening,
    jobId: string,
    pullRequest: string | null,
    error: string | null,
  ) => noticeText({ happening, automationName: automation.name, pullRequest, jobPage: page(jobId), error });
  const all: NoticeDraft[] = [
    ...jobs.flatMap((job) =>
      job.prLink
        ? [draft('pr_opened', job.prLink, job.id, textOf('pr_opened', job.id, job.prLink, null))]
        : [],
    ),
    ...merged.map((pull) =>
      draft('pr_merged', pull.url, pull.jobId, textOf('pr_merged', pull.jobId, pull.url, null)),
    ),
    ...jobs.flatMap((job) =>
      job.status === 'failed'
        ? [
            draft(
              'run_failed',
              `job:${job.id}@${job.completedAt}`,
              job.id,
              textOf('run_failed', job.id, null, job.error),
            ),
          ]
        : [],
    ),
    ...failedRuns.map((run) =>
      draft(
        'run_failed',
        `run:${run.id}`,
        null,
        noticeText({
          happening: 'run_failed',
          automationName: automation.name,
          pullRequest: null,
          jobPage: `${deps.publicUrl()}/ui/projects/${automation.projectId}/automations/${automation.id}`,
          error: run.detail,
        }),
      ),
    ),
  ];
  const fresh: NoticeDraft[] = [];
  for (const happening of ['pr_opened', 'pr_merged', 'run_failed'] as const) {
    const ofKind = all.filter((each) => each.happening === happening);
    const recorded = await notices.recordedSubjects(
      automation.id,
      happening,
      ofKind.map((each) => each.subject),
    );
    fresh.push(...ofKind.filter((each) => !recorded.has(each.subject)));
  }
  return fresh;
}

/** Records the notices of every automation that posts them. Returns how many are new. */
export async function recordNotices(deps: SlackNoticeDeps): Promise<number> {
  let added = 0;
  for (const watcher of await deps.store.automationNotices.watchers()) {
    added += await deps.store.automationNotices.record(await newNotices(deps, watcher));
  }
  return added;
}

/** Posts the notices this process claims. Returns how many it claimed. */
export async function postNotices(deps: SlackNoticeDeps): Promise<number> {
  const { store, api, logger } = deps;
  const claimed = await store.automationNotices.claim(BATCH);
  for (const notice of claimed) {
    try {
      // The last try stopped while it posted: when Slack has the notice, it is not posted again.
      if (!(notice.unsure && (await api.findNotice(notice.channel, notice.id, notice.createdAt))))
        await api.postNotice(notice.channel, notice.text, notice.id);
      await store.automationNotices.markSent(notice.id);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (notice.attempts >= MAX_ATTEMPTS) {
        logger.error(
          { err: error, notice: notice.id },
          'an automation notice failed every try; it is dropped',
        );
        await store.automationNotices.giveUp(notice.id, reason);
      } else {
        logger.warn({ err: error, notice: notice.id }, 'an automation notice failed; it is tried again');
        await store.automationNotices.retryLater(
          notice.id,
          reason,
          new Date(Date.now() + RETRY_MS * 2 ** (notice.attempts - 1)),
        );
      }
    }
  }
  return claimed.length;
}

export function createSlackNotifier(deps: SlackNoticeDeps & { pollMs: number }): BackgroundLoop {
  return backgroundLoop({
    name: 'posting automation notices to Slack',
    logger: deps.logger,
    pollMs: deps.pollMs,
    async pass() {
      await recordNotices(deps);
      return { more: (await postNotices(deps)) === BATCH };
    },
  });
}
