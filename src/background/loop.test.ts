import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../log.js';
import type { NotificationListener } from '../store/notify.js';
import { type BackgroundLoopOptions, backgroundLoop, type PassResult } from './loop.js';

/** A logger that remembers each line as [level, message]. */
function recordingLogger() {
  const lines: [string, string][] = [];
  const at = (level: string) => (_fields: unknown, message: string) => void lines.push([level, message]);
  const logger = { warn: at('warn'), info: at('info'), debug: at('debug') } as unknown as Logger;
  return { logger, lines };
}

/** A notification source like `store.db`: `notify` calls what listens. */
function fakeChannel(options: { failures?: number } = {}) {
  let failures = options.failures ?? 0;
  const listeners = new Set<NotificationListener>();
  return {
    listeners,
    notify: () => {
      for (const listener of listeners) listener('');
    },
    db: {
      listen: async (_channel: string, listener: NotificationListener) => {
        if (failures-- > 0) throw new Error('no connection');
        listeners.add(listener);
        return async () => void listeners.delete(listener);
      },
    },
  };
}

/** A promise to resolve by hand. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('the background loop', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const loopOf = (
    pass: () => Promise<PassResult | undefined>,
    extra: Partial<BackgroundLoopOptions> = {},
  ) => {
    const { logger, lines } = recordingLogger();
    const loop = backgroundLoop({ name: 'testing', logger, pollMs: 10_000, pass, ...extra });
    return { loop, lines };
  };

  it('folds the wake-ups that arrive during a pass into one more pass', async () => {
    const channel = fakeChannel();
    let passes = 0;
    let hold = gate();
    const { loop } = loopOf(
      async () => {
        passes++;
        await hold.opened;
        return undefined;
      },
      { listen: { db: channel.db, channel: 'testing' } },
    );
    const started = loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    for (let i = 0; i < 5; i++) channel.notify();
    void loop.wake();
    const first = hold;
    hold = gate();
    first.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(2);
    hold.open();
    await started;
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(2);
    // A notification after the passes runs one of its own.
    channel.notify();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(3);
    await loop.stop();
    expect(channel.listeners.size).toBe(0);
  });

  it('runs the fallback poll without notifications, and sooner when a pass asks', async () => {
    const asks: (PassResult | undefined)[] = [undefined, undefined, { nextInMs: 1_000 }, { more: true }];
    let passes = 0;
    const { loop } = loopOf(async () => asks[passes++]);
    await loop.start();
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes).toBe(3);
    // That pass asked for one in a second; that one asked for more at once.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes).toBe(5);
    await loop.stop();
  });

  it('on stop waits for the running pass, and then runs nothing', async () => {
    const channel = fakeChannel();
    let passes = 0;
    const hold = gate();
    const { loop } = loopOf(
      async () => {
        passes++;
        if (passes === 2) await hold.opened;
        return undefined;
      },
      { listen: { db: channel.db, channel: 'testing' } },
    );
    await loop.start();
    void loop.wake();
    expect(passes).toBe(2);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    hold.open();
    await stopping;
    channel.notify();
    await loop.wake();
    await vi.advanceTimersByTimeAsync(100_000);
    expect(passes).toBe(2);
    expect(channel.listeners.size).toBe(0);
  });

  it('logs a failed pass once per outage and tries again with a doubling wait', async () => {
    let passes = 0;
    const { loop, lines } = loopOf(
      async () => {
        passes++;
        if (passes <= 3) throw new Error('the database is away');
        return undefined;
      },
      { retryMinMs: 100 },
    );
    await loop.start();
    expect(lines).toEqual([['warn', 'testing failed; trying again until it works']]);
    await vi.advanceTimersByTimeAsync(100);
    expect(passes).toBe(2);
    await vi.advanceTimersByTimeAsync(199);
    expect(passes).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(3);
    await vi.advanceTimersByTimeAsync(400);
    expect(passes).toBe(4);
    expect(lines.map(([level]) => level)).toEqual(['warn', 'debug', 'debug', 'info']);
    expect(lines.at(-1)?.[1]).toBe('testing works again');
    // Working again: back to the poll.
    await vi.advanceTimersByTimeAsync(9_999);
    expect(passes).toBe(4);
    await loop.stop();
  });

  it('polls while it cannot listen, and listens once it can', async () => {
    const channel = fakeChannel({ failures: 2 });
    let passes = 0;
    const { loop, lines } = loopOf(
      async () => {
        passes++;
        return undefined;
      },
      { listen: { db: channel.db, channel: 'testing' } },
    );
    await loop.start();
    expect(lines).toEqual([['warn', 'testing: cannot listen; polling every 10000 ms']]);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(passes).toBe(3);
    expect(channel.listeners.size).toBe(1);
    expect(lines).toHaveLength(1);
    channel.notify();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(4);
    await loop.stop();
  });
});
