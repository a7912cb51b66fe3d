import { describe, expect, it } from 'vitest';
import { runBuiltInChecks } from './built-in.js';
import { conflictMarkers } from './markers.js';
import type { SiteTree } from './tree.js';

const CONFLICT = [
  '# Guide',
  '',
  '<<<<<<< refs/heads/agentjobs/abc-guide',
  'Step one, as the agent says it.',
  '=======',
  'Step one, as main says it.',
  '>>>>>>> refs/heads/main',
  '',
].join('\n');

describe('the conflicts check', () => {
  it('finds each set of markers git writes, at its first line', () => {
    expect(conflictMarkers('guide.md', CONFLICT)).toEqual([
      expect.objectContaining({ path: 'guide.md', line: 3, message: expect.stringContaining('lines 3–7') }),
    ]);
    const diff3 = ['<<<<<<< ours', 'a', '||||||| base', 'o', '=======', 'b', '>>>>>>> theirs'].join('\r\n');
    expect(conflictMarkers('x.md', `${diff3}\r\n\r\n${diff3}`).map((problem) => problem.line)).toEqual([
      1, 9,
    ]);
  });

  it('leaves setext headings, quotes and partial sets alone', () => {
    const markdown = [
      'Title',
      '=======',
      '',
      '>>>>>>> not a close without an open',
      '<<<<<<< an open with no middle',
      'text',
      '>>>>>>> and a close',
      '========',
      '<<<<<<<< eight is not seven',
    ].join('\n');
    expect(conflictMarkers('page.md', markdown)).toEqual([]);
  });

  it('gates only the files the job changed, as a built-in check', async () => {
    const files: Record<string, string> = { 'guide.md': CONFLICT, 'fine.md': '# Fine\n' };
    const tree: SiteTree = {
      files: async () => Object.keys(files).sort(),
      read: async (path) => files[path] ?? null,
      filesContaining: async () => [],
    };
    const run = (changes: { path: string; kind: 'added' | 'modified' }[]) =>
      runBuiltInChecks({ tree, changes, checks: ['conflicts'] });
    expect(await run([{ path: 'fine.md', kind: 'modified' }])).toEqual([
      expect.objectContaining({ name: 'conflicts', status: 'passed' }),
    ]);
    const [result] = await run([{ path: 'guide.md', kind: 'modified' }]);
    expect(result).toMatchObject({
      name: 'conflicts',
      status: 'failed',
      problems: [{ path: 'guide.md', line: 3 }],
    });
  });
});
