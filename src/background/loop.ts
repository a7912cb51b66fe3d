/**
 * The one background loop (DESIGN section 4) that every background task runs on: the job
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
  const { name, logger, pollMs } = options;
  const retryMinMs = options.retryMinMs ?? RETRY_MIN_MS;
  let state: 'new' | 'running' | 'stopped' = 'new';
  let passing: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: Unlisten | null = null;
  let subscribing: Promise<void> | null = null;
  let listenWarned = false;
  let failingSince: number | null = null;
  let retryMs = retryMinMs;
  let stopping: Promise<void> | null = null;

  function schedule(delayMs: number): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(async () => {
      timer = null;
      // A channel that could not be listened to is tried again at each poll.
      await subscribe();
      void wake();
    }, delayMs);
  }

  /** Decides the next timer after a pass: a retry with backoff, what the pass asked, or the poll. */
  function settle(outcome: { error: unknown } | { result: PassResult }): void {
    if ('error' in outcome) {
      if (failingSince === null) {
        failingSince = Date.now();
        retryMs = retryMinMs;
        logger.warn({ err: outcome.error, loop: name }, `${name} failed; trying again until it works`);
      } else {
        logger.debug({ err: outcome.error, loop: name }, `${name} failed again`);
      }
      schedule(retryMs);
      retryMs = Math.min(retryMs * 2, pollMs);
      return;
    }
    if (failingSince !== null) {
      logger.info({ loop: name, downMs: Date.now() - failingSince }, `${name} works again`);
      failingSince = null;
    }
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

  function subscribe(): Promise<void> {
    if (!options.listen || unlisten || state !== 'running') return Promise.resolve();
    const { db, channel } = options.listen;
    subscribing ??= (async () => {
      try {
        const off = await db.listen(channel, () => void wake());
        if (state === 'running') unlisten = off;
        else await off(); // stopped while subscribing
      } catch (error) {
        // Warned once: while the database is away the poll tries again every time.
        if (!listenWarned)
          logger.warn({ err: error, loop: name }, `${name}: cannot listen; polling every ${pollMs} ms`);
        listenWarned = true;
      } finally {
        subscribing = null;
      }
    })();
    return subscribing;
  }

  return {
    async start() {
      if (state !== 'new') throw new Error(`The loop "${name}" starts only once.`);
      state = 'running';
      await subscribe();
      await wake();
    },
    wake,
    stop() {
      stopping ??= (async () => {
        state = 'stopped';
        if (timer) clearTimeout(timer);
        timer = null;
        await subscribing;
        const off = unlisten;
        unlisten = null;
        await passing;
        try {
          await off?.();
        } catch (error) {
          logger.warn({ err: error, loop: name }, `${name}: could not stop listening`);
        }
      })();
      return stopping;
    },
  };
}
