import { describe, expect, it } from 'vitest';
import type { Lease } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import type { JobEvent, NewEvent } from './events.js';

// Type-level: `tsc --noEmit` fails when an event of the wrong shape compiles (each line below must
// be an error) or when a reader has to guess what an event carries.
function producers(append: Store['queue']['appendEvent'], lease: Lease) {
  void append(lease, 'commit', { sha: 'abc', files: ['a.md'], branch: 'agentjobs/x' });
  // @ts-expect-error a commit has no `url`
  void append(lease, 'commit', { sha: 'abc', files: ['a.md'], branch: 'agentjobs/x', url: 'x' });
  // @ts-expect-error a message says who wrote it
  void append(lease, 'message', { text: 'hi' });
  // @ts-expect-error no such phase
  void append(lease, 'phase', { phase: 'thinking' });
  // @ts-expect-error no such event type
  void append(lease, 'note', { text: 'hi' });
  // @ts-expect-error a tool result's `ok` is a boolean
  const wrong: NewEvent = { type: 'tool_result', data: { tool: 'read_file', ok: 'yes', summary: '' } };
  return wrong;
}

function reader(event: JobEvent): string {
  switch (event.type) {
    case 'commit':
      return event.data.files.join(', ');
    case 'plan':
      return event.data.items.map((item) => item.content).join(', ');
    default:
      // @ts-expect-error only a commit has a sha
      return event.data.sha;
  }
}

describe('job events', () => {
  it('are one union by type: a reader narrows by `type` alone', () => {
    expect(typeof producers).toBe('function');
    const event: JobEvent = {
      seq: 1,
      type: 'commit',
      at: '2026-11-26T10:00:00.000Z',
      data: { sha: 'abc', files: ['a.md', 'b.md'], branch: 'agentjobs/x' },
    };
    expect(reader(event)).toBe('a.md, b.md');
  });
});
