/**
 * The one background loop (docs/architecture.md#the-background-loop) that every background task runs on: the job
 * worker's claims, webhook delivery, pull-request closing, and what comes after them. A pass runs
 * when a notification arrives on the task's channel (LISTEN/NOTIFY on PostgreSQL, an in-process
 * event on SQLite), when the task itself asks (`wake`), and at the slow fallback poll, since a
 * notification can be missed across a reconnect. Wake-ups that arrive while a pass runs fold into
 * one more pass: what woke it may have come after the pass looked. A failed pass is logged (once
 * per outage, then quietly) and tried again with a doubling wait, sooner than the poll.
 */
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import type { Unlisten } from '../store/notify.js';

/** The first retry of a failed pass; each next waits twice as long, up to the poll interval. */
const RETRY_MIN_MS = 250;

/** What a pass may ask of the loop; nothing means "wait for news or the poll". */
export interface PassResult {
  /** There may be more to do at once (a full batch was taken): run another pass now. */
  more?: boolean;
  /** Something falls due before the poll would come (a retry's time): run a pass then. */
  nextInMs?: number;
}

/** What a background loop runs, and what wakes it. */
export interface BackgroundLoopOptions {
  /** What the loop does, for its log lines: "claiming jobs", "delivering webhooks". */
  name: string;
  logger: Logger;
  /** One pass; it throws when it failed, and is then tried again with backoff. */
  pass: () => Promise<PassResult | undefined>;
  /** The slow fallback poll, and the longest wait between retries of a failed pass. */
  pollMs: number;
  /** The notification channel that wakes the loop; without one, only `wake` and the poll do. */
  listen?: { db: Pick<Db, 'listen'>; channel: string };
  /** The first retry's wait after a failed pass. */
  retryMinMs?: number;
}

/** A background loop: started once, woken at will, stopped once. */
export interface BackgroundLoop {
  /** Listens (or warns and polls only), then runs the first pass; resolves once it is over. */
  start(): Promise<void>;
  /** Runs a pass now, or one more after the running one; resolves when that is over. */
  wake(): Promise<void>;
  /** Stops listening and polling, and waits for the running pass; no pass starts after. */
  stop(): Promise<void>;
}

export function backgroundLoop(options: BackgroundLoopOptions): BackgroundLoop {
  const { pollMs } = options;
  const listening = subscription(options, () => void wake());
  const failures = outage(options);
  let state: 'new' | 'running' | 'stopped' = 'new';
  let passing: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let stopping: Promise<void> | null = null;

  function schedule(delayMs: number): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(async () => {
      timer = null;
      // A channel that could not be listened to is tried again at each poll.
      await listening.open();
      void wake();
    }, delayMs);
  }

  /** Sets the next timer after a pass: a retry with backoff, what the pass asked, or the poll. */
  function settle(outcome: { error: unknown } | { result: PassResult }): void {
    if ('error' in outcome) {
      schedule(failures.failed(outcome.error));
      return;
    }
    failures.recovered();
    const { more, nextInMs } = outcome.result;
    if (more) again = true;
    // Woken during the pass: the next pass, at once, sets the timer.
    else if (!again) schedule(Math.max(0, Math.min(pollMs, nextInMs ?? pollMs)));
  }

  function wake(): Promise<void> {
    if (state !== 'running') return Promise.resolve();
    if (passing) {
      again = true;
      return passing;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    passing = (async () => {
      // The loop's exit and `passing = null` run in one synchronous stretch after the last await,
      // so a wake-up can never land between them and be lost.
      try {
        do {
          again = false;
          let outcome: { error: unknown } | { result: PassResult };
          try {
            outcome = { result: (await options.pass()) ?? {} };
          } catch (error) {
            outcome = { error };
          }
          if (state !== 'running') break;
          settle(outcome);
          if ('error' in outcome) break;
        } while (again && state === 'running');
      } finally {
        passing = null;
      }
    })();
    return passing;
  }

  return {
    async start() {
      if (state !== 'new') throw new Error(`The loop "${options.name}" starts only once.`);
      state = 'running';
      await listening.open();
      await wake();
    },
    wake,
    stop() {
      stopping ??= (async () => {
        state = 'stopped';
        if (timer) clearTimeout(timer);
        timer = null;
        await listening.close();
        await passing;
      })();
      return stopping;
    },
  };
}

/** A loop's subscription to its channel; `open` again after a failure tries once more. */
function subscription(options: BackgroundLoopOptions, onNotification: () => void) {
  const { name, logger } = options;
  let unlisten: Unlisten | null = null;
  let opening: Promise<void> | null = null;
  let warned = false;
  let closed = false;
  return {
    open(): Promise<void> {
      if (!options.listen || unlisten || closed) return Promise.resolve();
      const { db, channel } = options.listen;
      opening ??= (async () => {
        try {
          const off = await db.listen(channel, onNotification);
          if (closed) await off();
          else unlisten = off;
        } catch (error) {
          // Warned once: while the database is away every poll tries again.
          if (!warned)
            logger.warn(
              { err: error, loop: name },
              `${name}: cannot listen; polling every ${options.pollMs} ms`,
            );
          warned = true;
        } finally {
          opening = null;
        }
      })();
      return opening;
    },
    async close(): Promise<void> {
      closed = true;
      await opening;
      const off = unlisten;
      unlisten = null;
      try {
        await off?.();
      } catch (error) {
        logger.warn({ err: error, loop: name }, `${name}: could not stop listening`);
      }
    },
  };
}

/** The failures of a loop's passes: logged once per outage, and the doubling wait before a retry. */
function outage(options: BackgroundLoopOptions) {
  const { name, logger, pollMs } = options;
  const retryMinMs = options.retryMinMs ?? RETRY_MIN_MS;
  let since: number | null = null;
  let retryMs = retryMinMs;
  return {
    /** A pass failed: logs it, and returns how long to wait before the next try. */
    failed(error: unknown): number {
      if (since === null) {
        since = Date.now();
        retryMs = retryMinMs;
        logger.warn({ err: error, loop: name }, `${name} failed; trying again until it works`);
      } else {
        logger.debug({ err: error, loop: name }, `${name} failed again`);
      }
      const wait = retryMs;
      retryMs = Math.min(retryMs * 2, pollMs);
      return wait;
    },
    /** A pass worked: ends an outage, if there was one. */
    recovered(): void {
      if (since === null) return;
      logger.info({ loop: name, downMs: Date.now() - since }, `${name} works again`);
      since = null;
    },
  };
}
