import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../client/index.js';
import { eventLine } from './job.js';

const event = (type: JobEvent['type'], data: Record<string, unknown>): JobEvent => ({
  seq: 7,
  type,
  at: '2026-11-26T10:11:12.000Z',
  data,
});

describe('job events for people', () => {
  it.each([
    [
      event('tool_result', { tool: 'read_file', ok: true, summary: '12 lines of docs/a.md' }),
      '← read_file: 12 lines of docs/a.md',
    ],
    [
      event('tool_result', { tool: 'edit_file', ok: false, summary: 'old_text occurs twice' }),
      '✗ edit_file: old_text occurs twice',
    ],
    [
      event('check', {
        status: 'failed',
        results: [
          { name: 'markdown', status: 'failed', problems: [{}, {}] },
          { name: 'links', status: 'failed', problems: [{}] },
          { name: 'syntax', status: 'passed', problems: [] },
        ],
      }),
      'checks failed: 3 problems (markdown 2, links 1)',
    ],
    [event('check', { status: 'passed', results: [{ name: 'markdown', problems: [] }] }), 'checks passed'],
    [
      event('commit', { sha: '0123456789abcdef', files: ['a.md', 'b.md'], branch: 'agentjobs/x' }),
      'commit 0123456789 on agentjobs/x · 2 files',
    ],
    [
      event('commit', { sha: 'fedcba9876543210', files: ['a.md'], branch: 'agentjobs/x', unfinished: true }),
      'commit fedcba9876 on agentjobs/x · 1 file (unfinished work kept)',
    ],
    [
      event('commit', {
        sha: 'abcdef0123456789',
        files: ['a.md'],
        branch: 'agentjobs/x',
        merge: { base: 'main', conflicts: ['a.md'] },
      }),
      'merge abcdef0123: main into agentjobs/x · conflicts left to resolve in a.md',
    ],
    [
      event('setup', {
        status: 'reused',
        command: 'npm ci',
        key: 'k',
        message: 'The environment was reused.',
        output: '',
        durationMs: 0,
      }),
      'setup reused: The environment was reused.',
    ],
    [
      event('plan', { items: [{ status: 'completed' }, { status: 'in_progress' }, { status: 'pending' }] }),
      'plan: 1 of 3 done',
    ],
  ])('%#: describes %o in words, not JSON', (given, words) => {
    const line = eventLine(given);
    expect(line).toBe(`   7  10:11:12  ${given.type.padEnd(12)}  ${words}`);
    expect(line).not.toContain('{');
  });
});
