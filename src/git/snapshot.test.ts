import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, PNG, write } from '../../test/support/workspace-fixture.js';
import { Snapshot } from './snapshot.js';

// A context repository read at one commit of a bare repository: the workspace's confinement rules,
// and nothing of a later commit.

let root: string;
let gitDir: string;
let first: string;
let later: string;
const open: Snapshot[] = [];

function snapshot(commit = first, maxFileBytes = 4096): Snapshot {
  const made = Snapshot.open({ gitDir, commit, maxFileBytes });
  open.push(made);
  return made;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-snapshot-'));
  const upstream = join(root, 'upstream');
  mkdirSync(upstream);
  await git(upstream, 'init', '--quiet', '--initial-branch=main');
  write(upstream, 'README.md', '# Tool\nRun tool --dry-run first.\n');
  write(upstream, 'src/cli.ts', "export const flags = ['--dry-run', '--verbose'];\n");
  write(upstream, 'src/config/defaults.ts', 'export const timeoutSeconds = 45;\n');
  write(upstream, 'logo.png', PNG);
  write(upstream, 'big.txt', 'x'.repeat(5000));
  write(upstream, '"quoted".md', 'a name with quotes\n');
  symlinkSync('src/cli.ts', join(upstream, 'cli-link.ts'));
  symlinkSync('src', join(upstream, 'src-link'));
  symlinkSync('../../etc/passwd', join(upstream, 'evil'));
  symlinkSync('/etc/passwd', join(upstream, 'abs-evil'));
  symlinkSync('.git/config', join(upstream, 'to-git'));
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'first');
  first = await git(upstream, 'rev-parse', 'HEAD');
  write(upstream, 'src/later.ts', 'export const added = "--later-flag";\n');
  write(upstream, 'src/cli.ts', "export const flags = ['--dry-run', '--verbose', '--later-flag'];\n");
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'later');
  later = await git(upstream, 'rev-parse', 'HEAD');
  gitDir = join(root, 'code.git');
  await git(root, 'clone', '--quiet', '--bare', upstream, gitDir);
});

afterAll(async () => {
  for (const each of open) await each.close();
  rmSync(root, { recursive: true, force: true });
});

describe('Snapshot', () => {
  it('lists, reads and searches the repository at its commit, not at a later one', async () => {
    const code = snapshot();
    expect(await code.listFiles()).toEqual([
      '"quoted".md',
      'README.md',
      'abs-evil',
      'big.txt',
      'cli-link.ts',
      'evil',
      'logo.png',
      'src-link',
      'src/cli.ts',
      'src/config/defaults.ts',
      'to-git',
    ]);
    expect(await code.listFiles('src', '*.ts')).toEqual(['src/cli.ts', 'src/config/defaults.ts']);
    expect((await code.readFile('src/cli.ts'))?.toString()).toBe(
      "export const flags = ['--dry-run', '--verbose'];\n",
    );
    expect(await code.readFile('src/later.ts')).toBeNull();
    expect((await code.search('--later-flag')).matches).toEqual([]);
    expect(await code.search('dry-run')).toEqual({
      matches: [
        { path: 'README.md', line: 2, text: 'Run tool --dry-run first.' },
        { path: 'src/cli.ts', line: 1, text: "export const flags = ['--dry-run', '--verbose'];" },
      ],
      truncated: false,
    });
    // A Perl regex (a look-ahead): git's PCRE is found from a bare repository too, where there is
    // no worktree to probe, so the first search of the process does not settle for POSIX ERE.
    expect((await code.search('Seconds = \\d+(?=;)', { regex: true, path: 'src' })).matches).toHaveLength(1);

    const newer = snapshot(later);
    expect((await newer.readFile('src/later.ts'))?.toString()).toContain('--later-flag');
    expect((await newer.search('--later-flag')).matches.map((match) => match.path)).toEqual([
      'src/cli.ts',
      'src/later.ts',
    ]);
  });

  it('follows symlinks that stay inside, as the workspace does', async () => {
    const code = snapshot();
    expect((await code.readFile('cli-link.ts'))?.toString()).toContain('--dry-run');
    expect(await code.listFiles('src-link')).toEqual(['src/cli.ts', 'src/config/defaults.ts']);
    expect((await code.readFile('src-link/config/defaults.ts'))?.toString()).toContain('45');
  });

  it.each([
    ['..', '../secret', /outside the repository/],
    ['a .. escape inside a path', 'src/../../x', /outside the repository/],
    ['an absolute path', '/etc/passwd', /absolute path/],
    ['a Windows path', 'C:\\x', /absolute path/],
    ['.git', '.git/config', /inside \.git/],
    ['a .git look-alike', 'src/.GIT/config', /inside \.git/],
    ['a symlink leading out', 'evil', /symbolic link .* outside the repository/],
    ['an absolute symlink', 'abs-evil', /symbolic link .* outside the repository/],
    ['a symlink into .git', 'to-git', /outside the repository/],
    ['a quoted path', '"quoted".md', /double quote/],
    ['a line break', 'README.md\nx', /line break/],
    ['a folder', 'src', /is a folder/],
    ['a file too large', 'big.txt', /5000 bytes; files over 4096 bytes/],
  ])('refuses %s', async (_row, path, message) => {
    await expect(snapshot().readFile(path)).rejects.toThrow(message);
  });

  it('refuses the same paths when listing and searching', async () => {
    const code = snapshot();
    await expect(code.listFiles('../')).rejects.toThrow(/outside the repository/);
    await expect(code.listFiles('/')).rejects.toThrow(/absolute path/);
    await expect(code.listFiles('.git')).rejects.toThrow(/inside \.git/);
    await expect(code.search('root', { path: 'evil' })).rejects.toThrow(/outside the repository/);
    await expect(code.search('x', { path: '.git' })).rejects.toThrow(/inside \.git/);
    await expect(code.search('')).rejects.toThrow(/query is empty/);
    await expect(code.search('(', { regex: true })).rejects.toThrow(/regular expression is not valid/);
  });

  it('reads a binary file as bytes (the tools refuse it) and a missing commit as a refusal', async () => {
    expect((await snapshot().readFile('logo.png'))?.equals(PNG)).toBe(true);
    // Binary files are not searched as text.
    expect((await snapshot().search('PNG')).matches).toEqual([]);
    const missing = snapshot('0123456789abcdef0123456789abcdef01234567');
    await expect(missing.readFile('README.md')).rejects.toThrow(
      /Commit 0123456789ab is not in the repository/,
    );
  });

  it('refuses reads once closed', async () => {
    const code = snapshot();
    await code.close();
    await expect(code.readFile('README.md')).rejects.toThrow(/closed/);
  });
});
