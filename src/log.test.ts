import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLogger } from './log.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: createLogger(level, destination), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('requestLogger', () => {
  it('writes the same lines as a pino child, bound to the request id', async () => {
    const { logger, lines } = capture('info');
    const log = requestLogger(logger, { reqId: 'req_1' }, {});
    log.debug('hidden');
    log.info({ status: 200 }, 'request completed');
    log.warn('careful %s', 'now');
    log.child({ part: 'auth' }).error('failed');
    await flush();
    expect(lines.map(({ reqId, msg, status, part }) => ({ reqId, msg, status, part }))).toEqual([
      { reqId: 'req_1', msg: 'request completed', status: 200, part: undefined },
      { reqId: 'req_1', msg: 'careful now', status: undefined, part: undefined },
      { reqId: 'req_1', msg: 'failed', status: undefined, part: 'auth' },
    ]);
  });

  it('follows the parent level until its own is set', async () => {
    const { logger, lines } = capture('info');
    const log = requestLogger(logger, { reqId: 'req_2' }, {});
    expect(log.level).toBe('info');
    expect(log.isLevelEnabled('debug')).toBe(false);
    log.level = 'debug';
    log.debug('now shown');
    expect(logger.level).toBe('info');
    await flush();
    expect(lines.map((line) => line.msg)).toEqual(['now shown']);
  });

  it('makes a real child at once when given a level or serializers', () => {
    const { logger } = capture('info');
    const log = requestLogger(logger, { reqId: 'req_3' }, { level: 'warn' });
    expect(log.level).toBe('warn');
    expect(log.bindings()).toEqual({ reqId: 'req_3' });
  });
});
