/**
 * How a process starts and stops its parts (the database, the loops, the worker, the HTTP server),
 * in one order for every role (`server.ts`). Parts start one after another; each is registered
 * before its start, so that a start that fails halfway is stopped too. A part started in a later
 * stage may rely on every earlier one: stopping runs the stages backwards, the parts of one stage
 * together (the HTTP server drains while the worker's jobs get their grace period). When a start
 * fails, what started is stopped at once and the error goes on: nothing is left running.
 */
import type { Logger } from '../log.js';

/** `graceful`: a signal asked (drain, let jobs finish); `now`: a start failed, stop without waiting. */
export type StopMode = 'graceful' | 'now';

/** One part of a process. */
export interface Part {
  /** For the log: "the HTTP server", "the worker". */
  name: string;
  /** Starts it; absent for a part that only needs stopping (a pool opened on first use). */
  start?: () => Promise<unknown> | unknown;
  /** Stops it; called once, also after a start that failed or never came, so it must allow both. */
  stop: (mode: StopMode) => Promise<unknown> | unknown;
}

/** The parts a process started, stage by stage. */
export interface Parts {
  /** Starts the parts of a new stage, one after another; a failure stops every part, then throws. */
  stage(parts: Array<Part | null | undefined | false>): Promise<void>;
  /** Stops every part, the last stage first; resolves once all are stopped, the first failure thrown. */
  stop(mode: StopMode): Promise<void>;
}

export function startParts(logger: Logger): Parts {
  const stages: Part[][] = [];
  let stopping: Promise<void> | null = null;

  const stop = (mode: StopMode) => {
    stopping ??= (async () => {
      let failure: unknown = null;
      for (const stage of [...stages].reverse()) {
        const results = await Promise.allSettled(stage.map(async (part) => part.stop(mode)));
        results.forEach((result, index) => {
          if (result.status === 'fulfilled') return;
          logger.error({ err: result.reason, part: stage[index]?.name }, 'a part failed to stop');
          failure ??= result.reason;
        });
      }
      if (failure !== null) throw failure;
    })();
    return stopping;
  };

  return {
    async stage(parts) {
      if (stopping) throw new Error('The process is stopping: no part starts now.');
      const stage: Part[] = [];
      stages.push(stage);
      for (const part of parts) {
        if (!part) continue;
        stage.push(part);
        try {
          await part.start?.();
        } catch (error) {
          logger.debug({ err: error, part: part.name }, 'a part failed to start; stopping the others');
          await stop('now').catch(() => {});
          throw error;
        }
      }
    },
    stop,
  };
}
