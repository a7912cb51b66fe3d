import { describe, expect, it } from 'vitest';
import { stoppingMessage } from './server.js';

describe('what the first Ctrl-C says', () => {
  it('says it stops, and nothing about jobs or a second Ctrl-C, when no job runs', () => {
    for (const drainMs of [0, 5000]) {
      expect(stoppingMessage({ role: 'serve', drainMs, graceMs: 30_000, running: 0 })).toBe(
        '\nStopping: no job is running.\n',
      );
      expect(stoppingMessage({ role: 'worker', drainMs, graceMs: 30_000, running: 0 })).toBe(
        '\nStopping: no job is running.\n',
      );
      expect(stoppingMessage({ role: 'api', drainMs, graceMs: 30_000, running: 0 })).toBe('\nStopping.\n');
    }
  });

  it('names the drain, the grace period and the hand-back when jobs run', () => {
    expect(stoppingMessage({ role: 'serve', drainMs: 0, graceMs: 600_000, running: 1 })).toBe(
      '\nStopping: running jobs get up to 600 s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue. Press Ctrl-C again to stop at once: jobs still running resume after the next start.\n',
    );
    expect(stoppingMessage({ role: 'serve', drainMs: 5000, graceMs: 30_000, running: 2 })).toBe(
      '\nStopping: new jobs are refused and this port answers for 5 s more (AGENTJOBS_DRAIN_SECONDS); running jobs get up to 30 s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue. Press Ctrl-C again to stop at once: jobs still running resume after the next start.\n',
    );
  });
});
