import type { Tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../../test/support/agent-fixture.js';
import type { Workspace } from '../../git/workspace.js';
import { filesChangedGuard } from './files-changed.js';
import { type AgentTools, createTools } from './index.js';
import type { PlanItem } from './update-plan.js';

const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);
const LONG = Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`).join('\n');

let fixture: Fixture;

beforeAll(async () => {
  fixture = await createFixture({
    files: {
      'README.md': '# Demo\nHello world\n',
      'docs/index.md': 'Index\nSee the guide\n',
      'docs/guide/intro.md': 'Intro line one\nneedle here\n',
      'docs/twice.md': 'same\nsame\n',
      'docs/crlf.md': 'one\r\ntwo\r\nthree\r\n',
      'docs/empty.md': '',
      'images/logo.png': PNG,
      'long.md': `${LONG}\n`,
      'big.md': 'x'.repeat(20000),
    },
    links: {
      evil: '../../etc/passwd',
      'abs-evil': '/etc/passwd',
      'to-git': '.git/config',
      'link.md': 'docs/index.md',
    },
  });
});

afterAll(async () => {
  await fixture.cleanup();
});

describe('tools', () => {
  let workspace: Workspace;
  let tools: AgentTools;
  let plans: PlanItem[][];

  beforeEach(async () => {
    workspace = await fixture.workspace({ maxFileBytes: 16384 });
    plans = [];
    tools = createTools(workspace, { onPlan: (items) => void plans.push(items), checkChange: () => null });
  });

  /** Runs a tool as the SDK would: a result string, or a rejection whose message the model reads. */
  async function run(name: keyof AgentTools, input: unknown): Promise<string> {
    const execute = (tools[name] as Tool<unknown, string>).execute;
    if (!execute) throw new Error(`${name} has no execute`);
    return (await execute(input, { toolCallId: 'test', messages: [] })) as string;
  }

  it('list_files lists the repository, a folder and a glob', async () => {
    const all = await run('list_files', {});
    expect(all.split('\n')[0]).toBe('13 files in the repository:');
    expect(all).toContain('\ndocs/guide/intro.md\n');
    expect(await run('list_files', { path: 'docs/guide' })).toBe(
      '1 file under docs/guide:\ndocs/guide/intro.md',
    );
    expect(await run('list_files', { path: 'docs', pattern: 'i*.md' })).toBe(
      '2 files under docs matching "i*.md":\ndocs/guide/intro.md\ndocs/index.md',
    );
    expect(await run('list_files', { pattern: '*.rst' })).toBe(
      'No files in the repository matching "*.rst".',
    );
    await expect(run('list_files', { path: '../' })).rejects.toThrow(/outside the repository/);
  });

  it('read_file numbers lines and pages long files', async () => {
    expect(await run('read_file', { path: 'docs/index.md' })).toBe(
      'docs/index.md (lines 1-2 of 2):\n1\tIndex\n2\tSee the guide',
    );
    const page = await run('read_file', { path: 'long.md' });
    expect(page.split('\n')[0]).toBe('long.md (lines 1-400 of 1000):');
    expect(page).toContain('\n400\tline 400\n');
    expect(page).toMatch(/Call read_file with offset 401 to read more\.\]$/);
    expect(await run('read_file', { path: 'long.md', offset: 999, limit: 5 })).toBe(
      'long.md (lines 999-1000 of 1000):\n 999\tline 999\n1000\tline 1000',
    );
    expect(await run('read_file', { path: 'docs/crlf.md', offset: 2, limit: 1 })).toContain(
      '2\ttwo\n[Showing',
    );
    expect(await run('read_file', { path: 'docs/empty.md' })).toBe('docs/empty.md is empty (0 lines).');
    expect(await run('read_file', { path: 'link.md' })).toContain('1\tIndex');
    await expect(run('read_file', { path: 'long.md', offset: 2000 })).rejects.toThrow(
      '"long.md" has 1000 lines; offset 2000 is past the end.',
    );
  });

  it.each([
    ['../outside.md', /outside the repository/],
    ['docs/../../outside.md', /outside the repository/],
    ['/etc/passwd', /absolute path/],
    ['.git/config', /inside \.git/],
    ['evil', /symbolic link to "..\/..\/etc\/passwd", which is outside the repository/],
    ['abs-evil', /symbolic link to "\/etc\/passwd", which is outside the repository/],
    ['to-git', /\.git/],
    ['images/logo.png', /binary file \(16 bytes\)/],
    ['big.md', /20000 bytes; files over 16384 bytes/],
    ['docs/missing.md', /"docs\/missing.md" does not exist/],
    ['docs', /is a folder/],
  ])('read_file refuses %s with a message for the model', async (path, message) => {
    await expect(run('read_file', { path })).rejects.toThrow(message);
  });

  it('search_files finds lines, by folder, by regex, and explains a bad regex', async () => {
    expect(await run('search_files', { query: 'needle' })).toBe(
      '1 matching line for "needle":\ndocs/guide/intro.md:2: needle here',
    );
    expect(await run('search_files', { query: 'e', path: 'docs/guide' })).toMatch(/^2 matching lines/);
    expect(await run('search_files', { query: '^Intro|^Index', regex: true })).toBe(
      '2 matching lines for "^Intro|^Index":\ndocs/guide/intro.md:1: Intro line one\ndocs/index.md:1: Index',
    );
    expect(await run('search_files', { query: 'nowhere' })).toBe('No lines match "nowhere".');
    await expect(run('search_files', { query: '(unclosed', regex: true })).rejects.toThrow(
      /regular expression is not valid/,
    );
    await expect(run('search_files', { query: 'x', path: '.git' })).rejects.toThrow(/inside \.git/);
  });

  it('write_file creates and replaces files, and refuses what it must', async () => {
    expect(await run('write_file', { path: 'docs/new/page.md', content: 'a\nb\n' })).toBe(
      'Created docs/new/page.md (2 lines, 4 bytes).',
    );
    expect(await run('write_file', { path: 'README.md', content: '# New\n' })).toBe(
      'Replaced README.md (1 lines, 6 bytes).',
    );
    expect((await workspace.readFile('README.md'))?.toString()).toBe('# New\n');
    await expect(run('write_file', { path: '../x.md', content: 'x' })).rejects.toThrow(
      /outside the repository/,
    );
    await expect(run('write_file', { path: '/tmp/x.md', content: 'x' })).rejects.toThrow(/absolute path/);
    await expect(run('write_file', { path: '.git/hooks/pre-commit', content: 'x' })).rejects.toThrow(/\.git/);
    await expect(run('write_file', { path: 'evil', content: 'x' })).rejects.toThrow(/outside the repository/);
    await expect(run('write_file', { path: 'images/logo.png', content: 'x' })).rejects.toThrow(/binary file/);
    await expect(run('write_file', { path: 'huge.md', content: 'y'.repeat(20000) })).rejects.toThrow(
      /over 16384/,
    );
    expect(workspace.changedPaths()).toEqual(['README.md', 'docs/new/page.md']);
  });

  it('edit_file replaces text that occurs exactly once', async () => {
    expect(
      await run('edit_file', {
        path: 'docs/index.md',
        old_text: 'See the guide',
        new_text: 'Read\nthe guide',
      }),
    ).toBe('Edited docs/index.md at line 2: replaced 1 line(s) with 2.');
    expect((await workspace.readFile('docs/index.md'))?.toString()).toBe('Index\nRead\nthe guide\n');
    // "$&" must stay literal: no replacement patterns.
    await run('edit_file', { path: 'README.md', old_text: 'Hello', new_text: 'Price $& $1' });
    expect((await workspace.readFile('README.md'))?.toString()).toBe('# Demo\nPrice $& $1 world\n');
  });

  it('edit_file says how often old_text occurs when it is not exactly once', async () => {
    await expect(
      run('edit_file', { path: 'docs/index.md', old_text: 'absent', new_text: 'x' }),
    ).rejects.toThrow(/not found in "docs\/index.md" \(0 occurrences\)/);
    await expect(
      run('edit_file', { path: 'docs/twice.md', old_text: 'same', new_text: 'x' }),
    ).rejects.toThrow(/occurs 2 times in "docs\/twice.md"/);
    await expect(run('edit_file', { path: 'docs/index.md', old_text: '', new_text: 'x' })).rejects.toThrow(
      /empty/,
    );
    await expect(
      run('edit_file', { path: 'images/logo.png', old_text: 'PNG', new_text: 'x' }),
    ).rejects.toThrow(/binary file/);
    await expect(run('edit_file', { path: 'big.md', old_text: 'x', new_text: 'y' })).rejects.toThrow(
      /over 16384/,
    );
    expect(workspace.changedPaths()).toEqual([]);
  });

  it('edit_file matches LF text in a CRLF file and keeps CRLF', async () => {
    await run('edit_file', { path: 'docs/crlf.md', old_text: 'one\ntwo', new_text: 'one\n1.5\ntwo' });
    expect((await workspace.readFile('docs/crlf.md'))?.toString()).toBe('one\r\n1.5\r\ntwo\r\nthree\r\n');
  });

  it('delete_file and move_file change files and refuse what they must', async () => {
    expect(await run('delete_file', { path: 'docs/twice.md' })).toBe('Deleted docs/twice.md.');
    await expect(run('delete_file', { path: 'docs/twice.md' })).rejects.toThrow(/does not exist/);
    expect(await run('move_file', { from: 'images/logo.png', to: 'assets/logo.png' })).toBe(
      'Moved images/logo.png to assets/logo.png.',
    );
    await expect(run('move_file', { from: 'README.md', to: 'docs/index.md' })).rejects.toThrow(
      /already exists/,
    );
    await expect(run('move_file', { from: 'README.md', to: '../README.md' })).rejects.toThrow(/outside/);
    await expect(run('delete_file', { path: '.git/config' })).rejects.toThrow(/\.git/);
    expect(workspace.changedPaths()).toEqual(['assets/logo.png', 'docs/twice.md', 'images/logo.png']);
  });

  it('update_plan hands the items to the hook', async () => {
    const items = [
      { content: 'Read the guide', status: 'completed' },
      { content: 'Fix the typo', status: 'in_progress' },
    ];
    expect(await run('update_plan', { items })).toBe('Plan updated: 1 of 2 steps completed.');
    expect(plans).toEqual([items]);
  });
});

describe('filesChangedGuard', () => {
  it('refuses a change that would exceed the limit, and flags it', async () => {
    const workspace = await fixture.workspace();
    const guard = filesChangedGuard(workspace, 2);
    const tools = createTools(workspace, { onPlan: () => {}, checkChange: guard.check });
    const write = (path: string) =>
      (tools.write_file as Tool<unknown, string>).execute?.(
        { path, content: 'x' },
        { toolCallId: 't', messages: [] },
      );
    await write('a.md');
    await write('b.md');
    await write('a.md'); // already changed: no new path
    expect(guard.exceeded).toBe(false);
    await expect(write('c.md')).rejects.toThrow(/at most 2 files and has already changed 2/);
    expect(guard.exceeded).toBe(true);
    expect(workspace.changedPaths()).toEqual(['a.md', 'b.md']);
  });
});
