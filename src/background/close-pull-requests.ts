/**
 * Closes the pull requests of archived jobs on their code hosts (`jobs.archive` notes them, when
 * the project's `closePrOnArchive` is on). Apart from the archive, so that an archive answers at
 * once even while the host is down: a failed close is tried again with a growing wait, and after
 * the last try the job's `pull_request` event says it stayed open and why.
 */
import type { CodeHosts } from '../hosts/index.js';
import type { Logger } from '../log.js';
import { PR_CLOSES_CHANNEL } from '../store/channels.js';
import type { Store } from '../store/store.js';

/** Tries per pull request: with the waits below, about a day. */
export const CLOSE_ATTEMPTS = 10;
/** How long a taken close is held from other processes. */
const LEASE_MS = 120_000;
const BATCH = 10;

/** The wait after the `attempts`-th failure: 30 s doubling, at most 6 h. */
export function closeRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 6 * 3_600_000);
}

export interface PullRequestCloserOptions {
  store: Store;
  hosts: CodeHosts;
  logger: Logger;
}

/** One pass: closes what is due now. Returns how many were taken. */
export async function closeDuePullRequests(
  options: PullRequestCloserOptions,
  now = new Date(),
): Promise<number> {
  const { store, hosts, logger } = options;
  const due = await store.pullRequestCloses.take(BATCH, LEASE_MS, now);
  for (const close of due) {
    const log = { jobId: close.jobId, projectId: close.projectId };
    try {
      const project = await store.projects.get(close.projectId);
      if (!project) {
        await store.pullRequestCloses.finish(close.jobId, {
          closed: false,
          url: close.prLink,
          message: 'The project no longer exists.',
        });
        continue;
      }
      const closed = await hosts(project.host).closePullRequest({ project, branch: close.branch });
      await store.pullRequestCloses.finish(close.jobId, {
        closed: closed !== null,
        url: closed?.url ?? close.prLink,
        message: closed
          ? 'Closed because the job was archived.'
          : 'Nothing to close: the pull request was no longer open.',
      });
      logger.info({ ...log, closed: closed !== null }, 'archived job: pull request closed');
    } catch (error) {
      const attempts = close.attempts + 1;
      const message = (error as Error).message;
      if (attempts >= CLOSE_ATTEMPTS) {
        logger.warn(
          { ...log, err: error, attempts },
          'archived job: could not close its pull request; giving up',
        );
        await store.pullRequestCloses
          .finish(close.jobId, { closed: false, url: close.prLink, message: `Left open: ${message}` })
          .catch(() => undefined);
        continue;
      }
      const nextAt = new Date(now.getTime() + closeRetryDelayMs(attempts));
      logger.warn(
        { ...log, err: error, attempts, nextAt: nextAt.toISOString() },
        'archived job: could not close its pull request; trying again later',
      );
      await store.pullRequestCloses.retryAt(close.jobId, attempts, nextAt).catch(() => undefined);
    }
  }
  return due.length;
}

/**
 * Runs `closeDuePullRequests` when an archive notes a pull request to close (`PR_CLOSES_CHANNEL`)
 * and every `intervalMs` (retries fall due, and a notification may be missed while the database is
 * away), until stopped. Resolves once it listens (or polls only, when notifications are unavailable).
 */
export async function startPullRequestCloser(options: PullRequestCloserOptions & { intervalMs: number }) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let again = false;
  let stopped = false;
  const tick = () => {
    timer = null;
    running = closeDuePullRequests(options)
      .catch((error: unknown) =>
        options.logger.warn({ err: error }, 'could not look for pull requests to close; trying again'),
      )
      .finally(() => {
        running = null;
        if (stopped) return;
        // Woken during the pass: what woke it may have come after the pass's look.
        if (again) {
          again = false;
          tick();
        } else timer = setTimeout(tick, options.intervalMs);
      });
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    tick();
  };
  const unlisten = await options.store.db.listen(PR_CLOSES_CHANNEL, wake).catch((error: unknown) => {
    options.logger.warn({ err: error }, 'pull-request close notifications unavailable; polling instead');
    return null;
  });
  timer = setTimeout(tick, options.intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await unlisten?.();
    },
  };
}
