/**
 * The code hosts' events, handed to the automations: the receiver (`POST /v2/hooks/…`) records a
 * delivery and answers at once; this loop, in every process that runs background work, claims the
 * recorded events oldest first and runs the automations they concern (`operations/host-events.ts`).
 * A claim is a lease: an event whose process died is claimed again when the lease runs out, and an
 * event is marked processed only after its runs are recorded. An event whose try fails is tried
 * again later, at most `MAX_TRIES` times in all (a claim counts, so a try that kills its process
 * counts too); then each automation it concerns that has no run for it gets a `failed` run with
 * the error, and the event is done. Woken by the receiver's notification (PostgreSQL `NOTIFY`, or
 * in-process with SQLite), and polled as a fallback.
 */
import type { Config } from '../config/config.js';
import { DEFAULT_MENTION } from '../domain/automation.js';
import { redactSecrets } from '../domain/redact.js';
import type { Logger } from '../log.js';
import { failHostEvent, type HostEventDeps, processHostEvent } from '../operations/host-events.js';
import { HOST_EVENTS_CHANNEL } from '../store/channels.js';
import type { ClaimedHostEvent } from '../store/host-events.js';
import type { Store } from '../store/store.js';
import { type BackgroundLoop, backgroundLoop, type PassResult } from './loop.js';
import type { WatchedRepositories } from './watched-repositories.js';

/** Events one pass claims at most; a full batch runs another pass at once. */
const BATCH = 20;
/** The fallback poll, for a notification that was missed. */
const POLL_MS = 30_000;
/** Tries an event gets before its runs are recorded as failed. */
export const MAX_TRIES = 5;
/** The wait before the first try again; it doubles with each try. */
const RETRY_BASE_MS = 60_000;

/** What the dispatcher needs. */
export interface HostEventDispatcherOptions {
  store: Store;
  logger: Logger;
  config: Pick<Config, 'defaultModel' | 'limits' | 'automations'>;
  /** Whether a job's pull request is still open, for grouping (see `operations/automation-run.ts`). */
  pullRequestOpen?: HostEventDeps['pullRequestOpen'];
  /** Answers on a comment's thread with the job's link; absent, the service answers nothing. */
  reply?: HostEventDeps['reply'];
  /** Asks the host whether a comment's author may write; absent, only an automation's named authors start work. */
  authorCanWrite?: HostEventDeps['authorCanWrite'];
  /** The mirrors `{{change.diff}}`, `{{change.files}}` and a poll's commits are read from; absent, the host's word only. */
  repositories?: WatchedRepositories;
  /** The clock; tests move it. */
  now?: () => Date;
}

/** The dispatcher of one process. */
export interface HostEventDispatcher {
  start(): Promise<void>;
  /** Runs a pass now (tests). */
  wake(): Promise<void>;
  stop(): Promise<void>;
}

export function createHostEventDispatcher(options: HostEventDispatcherOptions): HostEventDispatcher {
  const { store, logger, config } = options;
  const deps: HostEventDeps = {
    store,
    config,
    automations: config.automations,
    log: logger,
    // The project's own, as its admin set it (`project update --mention`, the settings form).
    mention: async (projectId) => (await store.projects.get(projectId))?.mention ?? DEFAULT_MENTION,
    ...(options.pullRequestOpen ? { pullRequestOpen: options.pullRequestOpen } : {}),
    ...(options.reply ? { reply: options.reply } : {}),
    ...(options.authorCanWrite ? { authorCanWrite: options.authorCanWrite } : {}),
    ...(options.repositories ? { readChange: changeReader(options.repositories) } : {}),
  };

  const now = options.now ?? (() => new Date());

  /** Ends an event that failed on every try: failed runs where none ran, and done. */
  async function giveUp(received: ClaimedHostEvent, error: string) {
    const { runs } = await failHostEvent(deps, received, error);
    await store.hostEvents.markProcessed(received.id, now(), error);
    logger.warn(
      {
        projectId: received.projectId,
        hostEventId: received.id,
        attempts: received.attempts,
        runs: runs.length,
      },
      'code-host event failed on every try: its runs are recorded as failed',
    );
  }

  async function dispatch(received: ClaimedHostEvent) {
    if (received.attempts > MAX_TRIES) {
      // Its last try never ended (its process died, or outlived the lease).
      await giveUp(received, `The event was taken ${MAX_TRIES} times and no try of it ended.`);
      return;
    }
    try {
      const { runs } = await processHostEvent(deps, received);
      logger.info(
        { projectId: received.projectId, hostEventId: received.id, runs: runs.length },
        'code-host event dispatched',
      );
    } catch (error) {
      const message = redactSecrets(error instanceof Error ? error.message : String(error));
      if (received.attempts >= MAX_TRIES) {
        await giveUp(received, message);
        return;
      }
      // The automations that ran have their runs; the next try runs the others.
      const retryAt = new Date(now().getTime() + RETRY_BASE_MS * 2 ** (received.attempts - 1));
      await store.hostEvents.retryLater(received.id, message, retryAt);
      logger.warn(
        { err: error, hostEventId: received.id, attempts: received.attempts, retryAt: retryAt.toISOString() },
        'code-host event could not be dispatched; it is tried again later',
      );
      return;
    }
    await store.hostEvents.markProcessed(received.id, now());
  }

  async function pass(): Promise<PassResult> {
    const claimed = await store.hostEvents.claimUnprocessed(BATCH, undefined, now());
    for (const received of claimed) {
      try {
        await dispatch(received);
      } catch (error) {
        // Not even its failure could be written: the lease runs out and a pass takes it again.
        logger.warn({ err: error, hostEventId: received.id }, 'code-host event could not be dispatched');
      }
    }
    return claimed.length === BATCH ? { more: true } : {};
  }

  let loop: BackgroundLoop | null = null;
  return {
    async start() {
      loop = backgroundLoop({
        name: 'dispatching code-host events',
        logger,
        pass,
        pollMs: POLL_MS,
        listen: { db: store.db, channel: HOST_EVENTS_CHANNEL },
      });
      await loop.start();
    },
    wake: () => loop?.wake() ?? Promise.resolve(),
    async stop() {
      await loop?.stop();
      loop = null;
    },
  };
}

/** Reads a change from the mirrors: the diff and files, and the commits in between. */
function changeReader(repositories: WatchedRepositories): NonNullable<HostEventDeps['readChange']> {
  return (projectId, repository, from, to) => repositories.change(projectId, repository, from, to);
}
