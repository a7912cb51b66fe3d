import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactorFor } from './config.js';

describe('redactorFor', () => {
  it('blanks every secret setting, and key shapes', () => {
    const secrets = {
      ANTHROPIC_API_KEY: 'anthropic-value-0001',
      OPENAI_API_KEY: 'openai-value-0002',
      OPENAI_COMPATIBLE_API_KEY: 'compatible-value-0003',
      AGENTJOBS_SECRET_KEY: 'server-secret-key-value-0004-0123456789abcdef',
      AGENTJOBS_ADMIN_PASSWORD: 'admin-password-0005',
    };
    const redact = redactorFor(loadConfig(secrets));
    const text = `${Object.values(secrets).join(' ')} ajs_0123456789abcdef`;
    expect(redact(text)).toBe('[redacted] [redacted] [redacted] [redacted] [redacted] ajs_[redacted]');
  });
});

describe('AGENTJOBS_TRUST_PROXY', () => {
  const trust = (value: string) => loadConfig({ AGENTJOBS_TRUST_PROXY: value }).trustProxy;

  it('is off by default and takes true or false', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(trust('true')).toBe(true);
    expect(trust('false')).toBe(false);
  });

  it('takes the proxies’ addresses and ranges', () => {
    expect(trust('10.0.0.5')).toEqual(['10.0.0.5']);
    expect(trust(' 10.0.0.0/8, fd00::/8 ,::1')).toEqual(['10.0.0.0/8', 'fd00::/8', '::1']);
  });

  it('refuses anything else with one line naming the variable and the entry at fault', () => {
    for (const value of ['2', 'maybe', '10.0.0.0/33', '300.1.1.1', 'fd00::/129', '10.0.0.1/8/9'])
      expect(() => trust(value), value).toThrow(ConfigError);
    expect(() => trust('proxy.internal')).toThrow(
      /^AGENTJOBS_TRUST_PROXY: must be true, false, or the proxies/,
    );
    expect(() => trust('10.0.0.0/8, 10.0.0.0/33')).toThrow(/\("10\.0\.0\.0\/33" is neither\)/);
  });

  it('refuses hostile ranges: forms ipaddr.js reads loosely, broken and overlong prefixes', () => {
    const hostile = [
      '10.1', // ipaddr.js reads it as 10.0.0.1
      '0x0a.0.0.1',
      '010.0.0.1/8',
      '10.0.0.0/',
      '/8',
      '10.0.0.0/-1',
      '10.0.0.0/8x',
      '10.0.0.0/ 8',
      '10.0.0.0/1e1',
      '::1/1e2',
      ':::/8',
      `10.0.0.0/${'9'.repeat(400)}`,
    ];
    for (const value of hostile) {
      // A list hides the bad entry behind a good one.
      const error = (() => {
        try {
          trust(`127.0.0.1,${value}`);
        } catch (caught) {
          return caught as Error;
        }
      })();
      expect(error, JSON.stringify(value)).toBeInstanceOf(ConfigError);
      expect(error?.message.split('\n')[0]).toMatch(
        /^AGENTJOBS_TRUST_PROXY: must be true, false, or the proxies/,
      );
    }
  });

  it('keeps its error to one short line for a huge value', () => {
    const huge = Array.from({ length: 5_000 }, (_, index) => `10.0.${index}.0/24`).join(',');
    const error = (() => {
      try {
        trust(huge);
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(/"10\.0\.256\.0\/24" is neither/);
    expect(error?.message.length).toBeLessThan(500);
  });
});

describe('AGENTJOBS_SESSION_HOURS', () => {
  it('defaults to 12 hours and refuses zero', () => {
    expect(loadConfig({}).dashboard.sessionMs).toBe(12 * 3_600_000);
    expect(loadConfig({ AGENTJOBS_SESSION_HOURS: '1' }).dashboard.sessionMs).toBe(3_600_000);
    expect(() => loadConfig({ AGENTJOBS_SESSION_HOURS: '0' })).toThrow(/^AGENTJOBS_SESSION_HOURS:/);
  });

  it('never echoes an admin password it refuses', () => {
    expect(() => loadConfig({ AGENTJOBS_ADMIN_PASSWORD: 'short' })).toThrow(
      /^AGENTJOBS_ADMIN_PASSWORD: must be at least 8 characters$/,
    );
  });
});

describe('AGENTJOBS_REQUEST_TIMEOUT_SECONDS and AGENTJOBS_MAX_CONNECTIONS', () => {
  it('default to 30 seconds and 1000 connections', () => {
    expect(loadConfig({}).limits).toMatchObject({ requestTimeoutMs: 30_000, maxConnections: 1000 });
    expect(
      loadConfig({ AGENTJOBS_REQUEST_TIMEOUT_SECONDS: '5', AGENTJOBS_MAX_CONNECTIONS: '50' }).limits,
    ).toMatchObject({ requestTimeoutMs: 5000, maxConnections: 50 });
  });

  it('refuse zero, which would turn them off, and anything not a whole number', () => {
    for (const [variable, value] of [
      ['AGENTJOBS_REQUEST_TIMEOUT_SECONDS', '0'],
      ['AGENTJOBS_REQUEST_TIMEOUT_SECONDS', '1.5'],
      ['AGENTJOBS_MAX_CONNECTIONS', '0'],
      ['AGENTJOBS_MAX_CONNECTIONS', 'many'],
    ] as const)
      expect(() => loadConfig({ [variable]: value }), `${variable}=${value}`).toThrow(
        new RegExp(`^${variable}:`),
      );
  });
});

describe('AGENTJOBS_MODEL_OUTAGE_SECONDS', () => {
  it('defaults to ten minutes, takes 0 to fail at once, and refuses anything but whole seconds', () => {
    expect(loadConfig({}).agent.modelOutageWaitMs).toBe(600_000);
    expect(loadConfig({ AGENTJOBS_MODEL_OUTAGE_SECONDS: '0' }).agent.modelOutageWaitMs).toBe(0);
    for (const value of ['-1', '1.5', 'ten', '86401'])
      expect(() => loadConfig({ AGENTJOBS_MODEL_OUTAGE_SECONDS: value }), value).toThrow(
        /^AGENTJOBS_MODEL_OUTAGE_SECONDS:/,
      );
  });
});

describe('costs and context', () => {
  it('reads prices, the cost limit and the context window, and names a bad one', () => {
    const config = loadConfig({
      AGENTJOBS_MODEL_PRICES: '{"openai-compatible:llama3": {"input": 0.1, "output": 0.2}}',
      AGENTJOBS_MAX_JOB_COST_USD: '2.50',
      AGENTJOBS_CONTEXT_TOKENS: '8192',
    });
    expect(config.modelPrices).toEqual({ 'openai-compatible:llama3': { input: 0.1, output: 0.2 } });
    expect(config.jobLimits.maxCostUsd).toBe(2.5);
    expect(config.agent.contextTokens).toBe(8192);
    expect(loadConfig({}).jobLimits.maxCostUsd).toBeNull();
    expect(() => loadConfig({ AGENTJOBS_MODEL_PRICES: '{"llama3": {"input": 1, "output": 1}}' })).toThrow(
      /^AGENTJOBS_MODEL_PRICES: must map model ids/,
    );
    expect(() => loadConfig({ AGENTJOBS_MODEL_PRICES: 'not json' })).toThrow(
      /^AGENTJOBS_MODEL_PRICES: must be JSON/,
    );
    expect(() => loadConfig({ AGENTJOBS_MAX_JOB_COST_USD: '0' })).toThrow(/^AGENTJOBS_MAX_JOB_COST_USD:/);
  });
});

describe('AGENTJOBS_MAX_COMMANDS and AGENTJOBS_SETUP_CACHE_MB', () => {
  it('default to 20 calls and the sandbox disk limit, and refuse anything but whole numbers', () => {
    expect(loadConfig({}).checks).toMatchObject({ maxCommands: 20, setupCacheBytes: 1024 * 1024 * 1024 });
    expect(loadConfig({ AGENTJOBS_CHECK_DISK_MB: '512' }).checks.setupCacheBytes).toBe(512 * 1024 * 1024);
    const set = loadConfig({ AGENTJOBS_MAX_COMMANDS: '5', AGENTJOBS_SETUP_CACHE_MB: '4096' }).checks;
    expect(set).toMatchObject({ maxCommands: 5, setupCacheBytes: 4096 * 1024 * 1024 });
    expect(() => loadConfig({ AGENTJOBS_MAX_COMMANDS: 'many' })).toThrow(/^AGENTJOBS_MAX_COMMANDS:/);
    expect(() => loadConfig({ AGENTJOBS_SETUP_CACHE_MB: '1.5' })).toThrow(/^AGENTJOBS_SETUP_CACHE_MB:/);
  });
});

describe('AGENTJOBS_HEALTH_PORT and AGENTJOBS_DRAIN_SECONDS', () => {
  it("puts a worker's probes on the metrics port unless told otherwise, and on none without either", () => {
    expect(loadConfig({}).lifecycle).toEqual({ healthPort: null, drainMs: 5000 });
    expect(loadConfig({ AGENTJOBS_METRICS_PORT: '9100' }).lifecycle.healthPort).toBe(9100);
    expect(
      loadConfig({ AGENTJOBS_METRICS_PORT: '9100', AGENTJOBS_HEALTH_PORT: '9090' }).lifecycle.healthPort,
    ).toBe(9090);
  });

  it('takes a drain of zero, and refuses what is not a number of seconds', () => {
    expect(loadConfig({ AGENTJOBS_DRAIN_SECONDS: '0' }).lifecycle.drainMs).toBe(0);
    expect(() => loadConfig({ AGENTJOBS_DRAIN_SECONDS: '-1' })).toThrow(/^AGENTJOBS_DRAIN_SECONDS:/);
    expect(() => loadConfig({ AGENTJOBS_HEALTH_PORT: '70000' })).toThrow(/^AGENTJOBS_HEALTH_PORT:/);
  });
});
