import { describe, expect, it } from 'vitest';
import type { Logger } from '../log.js';
import { type Part, type StopMode, startParts } from './parts.js';

const silent = { error() {}, debug() {} } as unknown as Logger;

/** A part that writes what happens to it into `log`; `stopMs` makes its stop take that long. */
function part(name: string, log: string[], options: { fails?: boolean; stopMs?: number } = {}): Part {
  return {
    name,
    async start() {
      log.push(`start ${name}`);
      if (options.fails) throw new Error(`${name} cannot start`);
    },
    async stop(mode: StopMode) {
      log.push(`stop ${name} ${mode}`);
      if (options.stopMs) await new Promise((resolve) => setTimeout(resolve, options.stopMs));
      log.push(`stopped ${name}`);
    },
  };
}

describe('the parts of a process', () => {
  it('starts in order and stops the stages backwards, the parts of a stage together', async () => {
    const log: string[] = [];
    const parts = startParts(silent);
    await parts.stage([part('database', log)]);
    await parts.stage([part('http', log, { stopMs: 30 }), null, false, part('worker', log, { stopMs: 10 })]);
    await parts.stop('graceful');
    expect(log).toEqual([
      'start database',
      'start http',
      'start worker',
      'stop http graceful',
      'stop worker graceful',
      'stopped worker',
      'stopped http',
      'stop database graceful',
      'stopped database',
    ]);
  });

  it('stops every part started, and the one that failed, at once when a start fails', async () => {
    const log: string[] = [];
    const parts = startParts(silent);
    await parts.stage([part('database', log)]);
    await expect(
      parts.stage([part('http', log), part('worker', log, { fails: true }), part('never', log)]),
    ).rejects.toThrow('worker cannot start');
    expect(log).toEqual([
      'start database',
      'start http',
      'start worker',
      'stop http now',
      'stopped http',
      'stop worker now',
      'stopped worker',
      'stop database now',
      'stopped database',
    ]);
    await expect(parts.stage([part('late', log)])).rejects.toThrow(/stopping/);
  });

  it('stops the others when one part fails to stop, then says so', async () => {
    const log: string[] = [];
    const parts = startParts(silent);
    await parts.stage([part('database', log)]);
    await parts.stage([{ name: 'broken', stop: () => Promise.reject(new Error('stuck')) }]);
    await expect(parts.stop('graceful')).rejects.toThrow('stuck');
    expect(log).toContain('stopped database');
    // Once: a second stop waits for the same.
    await expect(parts.stop('now')).rejects.toThrow('stuck');
    expect(log.filter((line) => line.startsWith('stop database'))).toHaveLength(1);
  });
});
