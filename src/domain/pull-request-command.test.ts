import { describe, expect, it } from 'vitest';
import { pullRequestCommandOf } from './pull-request-command.js';

describe('pullRequestCommandOf', () => {
  it('reads a comment that is only the mention and a command word, in any case', () => {
    expect(pullRequestCommandOf('@agentjobs stop', '@agentjobs')).toBe('stop');
    expect(pullRequestCommandOf('  @AgentJobs   REBASE \n', '@agentjobs')).toBe('rebase');
    expect(pullRequestCommandOf('@agentjobs retry!', '@agentjobs')).toBe('retry');
    expect(pullRequestCommandOf('@agentjobs\nstop.', '@agentjobs')).toBe('stop');
    expect(pullRequestCommandOf('@docs-bot stop', '@docs-bot')).toBe('stop');
  });

  it('takes anything more for a follow-up', () => {
    for (const body of [
      '@agentjobs stop the intro from repeating',
      '@agentjobs stop please',
      'please @agentjobs stop',
      '@agentjobs stopp',
      '@agentjobs retry?',
      '@agentjobs rebase on main',
      '@agentjobsbot stop',
      '@agentjobs',
      '@agentjobs stop\n\nthanks',
    ]) {
      expect(pullRequestCommandOf(body, '@agentjobs'), body).toBeNull();
    }
    // The project's own mention only: the default no longer calls a project that chose another.
    expect(pullRequestCommandOf('@agentjobs stop', '@docs-bot')).toBeNull();
  });
});
