import { describe, expect, it } from 'vitest';
import { addressProblem, retryDelayMs, wantsEvent, webhookUrlProblem } from './webhook.js';

describe('webhook URL rules', () => {
  it.each([
    ['https://hooks.example.com/agentjobs', false, null],
    ['http://hooks.example.com:8080/x?y=1', false, null],
    ['HTTPS://HOOKS.EXAMPLE.COM/', false, null],
    ['ftp://hooks.example.com/', false, 'it must be an http or https URL'],
    ['https://a:b@hooks.example.com/', false, 'it must not contain credentials (user:password@)'],
    ['https://hooks.example.com/#x', false, 'it must not contain a fragment (#…)'],
    [`https://hooks.example.com/${'x'.repeat(2048)}`, false, 'it must be at most 2048 characters'],
    ['http://127.0.0.1/', true, null],
    ['http://[::1]/', true, null],
    ['http://169.254.169.254/', true, '169.254.169.254 is a metadata address'],
    [
      'http://[::ffff:169.254.169.254]/',
      true,
      '::ffff:a9fe:a9fe is an IPv4-mapped address for 169.254.169.254, a metadata address',
    ],
    ['http://metadata.google.internal./', true, 'metadata.google.internal is a metadata service'],
  ])('%s (private allowed: %s)', (url, allowPrivate, problem) => {
    expect(webhookUrlProblem(url, allowPrivate)).toBe(problem);
  });

  it('classifies addresses, metadata first', () => {
    expect(addressProblem('8.8.8.8', false)).toBeNull();
    expect(addressProblem('2606:4700::1111', false)).toBeNull();
    expect(addressProblem('10.0.0.1', false)).toContain('private');
    expect(addressProblem('10.0.0.1', true)).toBeNull();
    expect(addressProblem('100.100.100.200', true)).toContain('metadata');
    expect(addressProblem('fe80::1', true)).toContain('link-local');
  });
});

describe('retry schedule', () => {
  it('waits the scheduled time within ±20%, then gives up', () => {
    const schedule = [5000, 300_000];
    expect(retryDelayMs(schedule, 1, 0)).toBe(4000);
    expect(retryDelayMs(schedule, 1, 0.999_999)).toBe(6000);
    expect(retryDelayMs(schedule, 2, 0.5)).toBe(300_000);
    expect(retryDelayMs(schedule, 3, 0.5)).toBeNull();
  });

  it('sends every event to endpoints without a list', () => {
    expect(wantsEvent(null, 'job.failed')).toBe(true);
    expect(wantsEvent([], 'job.failed')).toBe(true);
    expect(wantsEvent(['job.completed'], 'job.failed')).toBe(false);
  });
});
