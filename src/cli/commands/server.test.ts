import { describe, expect, it } from 'vitest';
import { stoppingMessage } from './server.js';

describe('what the first Ctrl-C says', () => {
  it('says nothing about running jobs when there are none', () => {
    for (const role of ['serve', 'worker'] as const) {
      const idle = stoppingMessage({ role, drainMs: 0, graceMs: 30_000, running: 0 });
      expect(idle).not.toMatch(/job/i);
      expect(idle).toContain('Press Ctrl-C again to stop at once.');
    }
    expect(stoppingMessage({ role: 'serve', drainMs: 5000, graceMs: 30_000, running: 0 })).toBe(
      '\nStopping: new jobs are refused and this port answers for 5 s more (AGENTJOBS_DRAIN_SECONDS). Press Ctrl-C again to stop at once.\n',
    );
  });

  it('names the grace period and the hand-back when jobs run', () => {
    expect(stoppingMessage({ role: 'serve', drainMs: 0, graceMs: 600_000, running: 1 })).toBe(
      '\nStopping: running jobs get up to 600 s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue. Press Ctrl-C again to stop at once: jobs still running resume after the next start.\n',
    );
    expect(stoppingMessage({ role: 'api', drainMs: 0, graceMs: 30_000, running: 0 })).toBe(
      '\nStopping: requests in flight finish first. Press Ctrl-C again to stop at once.\n',
    );
  });
});
