/**
 * Closes the pull requests of archived jobs on their code hosts (`jobs.archive` notes them, when
 * the project's `closePrOnArchive` is on). Apart from the archive, so that an archive answers at
 * once even while the host is down: a failed close is tried again with a growing wait, and after
 * the last try the job's `pull_request` event says it stayed open and why. What a close came to
 * is written to the store; when that write fails (the database is away), it is logged with the
 * job and written again on the next pass, which the background loop (`loop.ts`) runs soon.
 */
import type { CodeHosts } from '../hosts/index.js';
import type { Logger } from '../log.js';
import { PR_CLOSES_CHANNEL } from '../store/channels.js';
import type { DuePullRequestClose } from '../store/pr-closes.js';
import type { Store } from '../store/store.js';
import { backgroundLoop } from './loop.js';

/** Tries per pull request: with the waits below, about a day. */
export const CLOSE_ATTEMPTS = 10;
/** How long a taken close is held from other processes. */
const LEASE_MS = 120_000;
const BATCH = 10;

/** The wait after the `attempts`-th failure: 30 s doubling, at most 6 h. */
export function closeRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 6 * 3_600_000);
}

/** What closing pull requests needs. */
export interface PullRequestCloserOptions {
  store: Store;
  hosts: CodeHosts;
  logger: Logger;
}

/** Writes what came of one close to the store. */
type Outcome = () => Promise<void>;

/** Closes one pull request on its host; returns what to write, a retry or a give-up when the host failed. */
async function closeOne(
  options: PullRequestCloserOptions,
  close: DuePullRequestClose,
  now: Date,
): Promise<Outcome> {
  const { store, hosts, logger } = options;
  const finish = (outcome: Parameters<Store['pullRequestCloses']['finish']>[1]) => () =>
    store.pullRequestCloses.finish(close.jobId, outcome);
  const log = { jobId: close.jobId, projectId: close.projectId };
  try {
    const project = await store.projects.get(close.projectId);
    if (!project)
      return finish({ closed: false, url: close.prLink, message: 'The project no longer exists.' });
    const closed = await hosts(project.host).closePullRequest({ project, branch: close.branch });
    logger.info({ ...log, closed: closed !== null }, 'archived job: pull request closed');
    return finish({
      closed: closed !== null,
      url: closed?.url ?? close.prLink,
      message: closed
        ? 'Closed because the job was archived.'
        : 'Nothing to close: the pull request was no longer open.',
    });
  } catch (error) {
    const attempts = close.attempts + 1;
    if (attempts >= CLOSE_ATTEMPTS) {
      logger.warn(
        { ...log, err: error, attempts },
        'archived job: could not close its pull request; giving up',
      );
      return finish({ closed: false, url: close.prLink, message: `Left open: ${(error as Error).message}` });
    }
    const nextAt = new Date(now.getTime() + closeRetryDelayMs(attempts));
    logger.warn(
      { ...log, err: error, attempts, nextAt: nextAt.toISOString() },
      'archived job: could not close its pull request; trying again later',
    );
    return () => store.pullRequestCloses.retryAt(close.jobId, attempts, nextAt);
  }
}

/**
 * A pull-request closer: each `pass` first writes what earlier passes could not, then closes
 * what is due. A pass whose writes failed throws, after logging each with its job.
 */
export function pullRequestCloser(options: PullRequestCloserOptions) {
  const { store, logger } = options;
  /** Outcomes not yet written, by job id; the take's lease keeps other passes off these jobs. */
  const unwritten = new Map<string, Outcome>();

  const write = async (jobId: string, outcome: Outcome) => {
    try {
      await outcome();
      unwritten.delete(jobId);
    } catch (error) {
      unwritten.set(jobId, outcome);
      logger.warn(
        { jobId, err: error },
        'archived job: could not record what became of its pull request; trying again on the next pass',
      );
    }
  };

  return {
    /** One pass: returns how many closes were taken. */
    async pass(now = new Date()): Promise<number> {
      for (const [jobId, outcome] of [...unwritten]) await write(jobId, outcome);
      if (unwritten.size > 0) throw new Error(`${unwritten.size} pull-request closes are still unrecorded`);
      const due = await store.pullRequestCloses.take(BATCH, LEASE_MS, now);
      for (const close of due) await write(close.jobId, await closeOne(options, close, now));
      if (unwritten.size > 0) throw new Error(`${unwritten.size} pull-request closes could not be recorded`);
      return due.length;
    },
  };
}

/** One pass of a closer of its own: closes what is due now. Returns how many were taken. */
export function closeDuePullRequests(options: PullRequestCloserOptions, now = new Date()): Promise<number> {
  return pullRequestCloser(options).pass(now);
}

/**
 * Runs a closer's passes on the background loop: when an archive notes a pull request to close
 * (`PR_CLOSES_CHANNEL`) and every `intervalMs` (retries fall due, and a notification may be missed
 * while the database is away), until stopped. Resolves once the first pass is over.
 */
export async function startPullRequestCloser(options: PullRequestCloserOptions & { intervalMs: number }) {
  const closer = pullRequestCloser(options);
  const loop = backgroundLoop({
    name: 'closing pull requests',
    logger: options.logger,
    pollMs: options.intervalMs,
    listen: { db: options.store.db, channel: PR_CLOSES_CHANNEL },
    // A full batch may mean more are due.
    pass: async () => ({ more: (await closer.pass()) === BATCH }),
  });
  await loop.start();
  return { stop: () => loop.stop() };
}
