import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ALL_FILES,
  fx,
  git,
  openWorkspace,
  PNG,
  useWorkspace,
  useWorkspaceFixture,
} from '../../test/support/workspace-fixture.js';
import { isBinary, PathError, WorkspaceError } from './paths.js';
import type { Workspace } from './workspace.js';

useWorkspaceFixture();

describe('Workspace', () => {
  const branch = 'agentjobs/job-1';
  const opened = useWorkspace(branch);

  it('starts at the base branch without writing any file', () => {
    expect(opened.workspace.headCommit).toBe(fx.baseSha);
    expect(readdirSync(opened.workspace.dir)).toEqual(['.git']);
  });

  it('lists files, by folder, by glob and through a symlinked folder', async () => {
    expect(await opened.workspace.listFiles()).toEqual(ALL_FILES);
    expect(await opened.workspace.listFiles('.')).toEqual(ALL_FILES);
    expect(await opened.workspace.listFiles('docs')).toEqual(['docs/guide/intro.md', 'docs/index.md']);
    expect(await opened.workspace.listFiles(undefined, '*.md')).toEqual([
      'README.md',
      'docs/guide/intro.md',
      'docs/index.md',
      'link-inside.md',
    ]);
    expect(await opened.workspace.listFiles('docs', 'guide/*.md')).toEqual(['docs/guide/intro.md']);
    expect(await opened.workspace.listFiles(undefined, 'docs/**/*.md')).toEqual([
      'docs/guide/intro.md',
      'docs/index.md',
    ]);
    expect(await opened.workspace.listFiles('docs-link')).toEqual(['docs/guide/intro.md', 'docs/index.md']);
    expect(await opened.workspace.listFiles('nowhere')).toEqual([]);
    await expect(opened.workspace.listFiles('../up')).rejects.toBeInstanceOf(PathError);
  });

  it('reads text, binary and symlinked files from the object store', async () => {
    expect((await opened.workspace.readFile('README.md'))?.toString()).toBe('# Demo\nHello world\n');
    expect((await opened.workspace.readFile('./docs/guide/../guide/intro.md'))?.toString()).toContain(
      'needle',
    );
    const logo = await opened.workspace.readFile('images/logo.png');
    expect(logo?.equals(PNG)).toBe(true);
    expect(isBinary(logo as Buffer)).toBe(true);
    expect((await opened.workspace.readFile('link-inside.md'))?.toString()).toBe('Index\nSee the guide\n');
    expect((await opened.workspace.readFile('docs-link/guide/intro.md'))?.toString()).toContain('needle');
    expect(await opened.workspace.readFile('missing.md')).toBeNull();
    expect(await opened.workspace.readFile('dangling')).toBeNull();
    expect((await opened.workspace.readFile('empty.txt'))?.length).toBe(0);
  });

  it('keeps the cat-file protocol in step under many concurrent reads', async () => {
    const paths = [
      'README.md',
      'empty.txt',
      'images/logo.png',
      'missing.md',
      'tiny.txt',
      'docs-link/index.md',
    ];
    const reads = await Promise.all(
      Array.from({ length: 60 }, (_, index) => opened.workspace.readFile(paths[index % 6] as string)),
    );
    expect(reads.slice(0, 6).map((content) => content?.length ?? null)).toEqual([
      19,
      0,
      PNG.length,
      null,
      3,
      20,
    ]);
    for (const [index, content] of reads.entries()) expect(content).toEqual(reads[index % 6]);
  });

  it('refuses paths outside the repository, into .git, and folders', async () => {
    await expect(opened.workspace.readFile('evil')).rejects.toMatchObject({
      name: 'PathError',
      reason: 'outside_repository',
    });
    await expect(opened.workspace.readFile('abs-evil')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.writeFile('evil', 'x')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.readFile('../README.md')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.readFile('/etc/passwd')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.readFile('.git/config')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.writeFile('.GIT/hooks/pre-commit', 'x')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.readFile('docs')).rejects.toMatchObject({ reason: 'is_directory' });
    await expect(opened.workspace.readFile('README.md/x')).rejects.toMatchObject({
      reason: 'not_a_directory',
    });
    await expect(opened.workspace.writeFile('docs', 'x')).rejects.toMatchObject({ reason: 'is_directory' });
    await expect(opened.workspace.readFile('to-git')).rejects.toMatchObject({ reason: 'outside_repository' });
    await expect(opened.workspace.readFile('loop-a')).rejects.toMatchObject({ reason: 'unsupported' });
    await expect(opened.workspace.readFile('evil/x')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.moveFile('evil', 'elsewhere')).rejects.toMatchObject({
      reason: 'unsupported',
    });
    await expect(opened.workspace.listFiles('evil')).rejects.toBeInstanceOf(PathError);
    await expect(opened.workspace.search('x', { path: 'abs-evil' })).rejects.toBeInstanceOf(PathError);
  });

  it('searches committed files with fixed strings and regexes, capped', async () => {
    expect(await opened.workspace.search('needle')).toEqual({
      matches: [{ path: 'docs/guide/intro.md', line: 2, text: 'needle here' }],
      truncated: false,
    });
    expect((await opened.workspace.search('Hel+o', { regex: true })).matches).toEqual([
      { path: 'README.md', line: 2, text: 'Hello world' },
    ]);
    expect((await opened.workspace.search('Hel+o')).matches).toEqual([]);
    expect(
      (await opened.workspace.search('e', { path: 'docs' })).matches.every((m) => m.path.startsWith('docs/')),
    ).toBe(true);
    expect(await opened.workspace.search('e', { limit: 2 })).toMatchObject({
      truncated: true,
      matches: { length: 2 },
    });
    await expect(opened.workspace.search('(', { regex: true })).rejects.toMatchObject({
      reason: 'invalid_argument',
    });
  });

  it('enforces the file size limit', async () => {
    const small = await openWorkspace('agentjobs/small', { maxFileBytes: 10 });
    try {
      await expect(small.readFile('README.md')).rejects.toMatchObject({ reason: 'too_large' });
      // The skipped bytes did not desynchronize the reader.
      expect((await small.readFile('tiny.txt'))?.toString()).toBe('ok\n');
      // Moving does not bring the content to the model, so it is not capped.
      await small.moveFile('README.md', 'README-moved.md');
      expect(small.changedPaths()).toEqual(['README-moved.md', 'README.md']);
      await expect(small.writeFile('a.md', 'x'.repeat(11))).rejects.toBeInstanceOf(WorkspaceError);
      expect((await small.readFile('docs/index.md').catch((error) => error))?.message).toMatch(
        /over 10 bytes/,
      );
    } finally {
      await small.close();
    }
  });

  it('gives its pending changes by blob id, and a later workspace of the same start takes them back', async () => {
    const first = await openWorkspace('agentjobs/resume');
    let changes: ReturnType<Workspace['pendingChanges']>;
    try {
      await first.writeFile('docs/new.md', 'new page\n');
      await first.writeFile('README.md', 'changed\n');
      await first.deleteFile('tiny.txt');
      changes = first.pendingChanges();
      expect(changes).toMatchObject({ head: fx.baseSha, deleted: ['tiny.txt'] });
      expect(changes.written.map((file) => file.path).sort()).toEqual(['README.md', 'docs/new.md']);
    } finally {
      // Its process died: the worktree is gone, the blobs stay in the mirror.
      await first.close();
    }
    const second = await openWorkspace('agentjobs/resume');
    try {
      expect(await second.restore(changes, 200)).toBe(true);
      expect(second.changedPaths()).toEqual(['README.md', 'docs/new.md', 'tiny.txt']);
      expect((await second.readFile('docs/new.md'))?.toString()).toBe('new page\n');
      expect(readFileSync(join(second.dir, 'README.md'), 'utf8')).toBe('changed\n');
      expect(await second.readFile('tiny.txt')).toBeNull();
      // Taken back once only, and never over changes of its own.
      expect(await second.restore(changes, 200)).toBe(false);
    } finally {
      await second.close();
    }
    const other = await openWorkspace('agentjobs/resume-other');
    try {
      // Another start, or a blob the mirror lacks: nothing is taken back.
      expect(await other.restore({ ...changes, head: 'f'.repeat(40) }, 200)).toBe(false);
      const missing = { ...changes, written: [{ path: 'a.md', mode: '100644', sha: 'e'.repeat(40) }] };
      expect(await other.restore(missing, 200)).toBe(false);
      expect(other.changedPaths()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('takes back a tampered record only as the tools would write it: otherwise nothing at all', async () => {
    const first = await openWorkspace('agentjobs/tampered-source');
    let changes: ReturnType<Workspace['pendingChanges']>;
    try {
      await first.writeFile('docs/new.md', 'new page\n');
      changes = first.pendingChanges();
    } finally {
      await first.close();
    }
    const [good] = changes.written as [(typeof changes.written)[number]];
    const submodule = await git(fx.mirrorPath, 'rev-parse', 'refs/heads/main');
    // Each record starts with the good file, so a refusal must also undo what came before it.
    const tampered: Array<[string, Partial<typeof changes>]> = [
      ['a symlink', { written: [good, { ...good, path: 'link.md', mode: '120000' }] }],
      ['a submodule', { written: [good, { path: 'vendor', mode: '160000', sha: submodule }] }],
      ['a folder', { written: [good, { ...good, path: 'folder', mode: '40000' }] }],
      ['a path under .git/', { written: [good, { ...good, path: '.git/hooks/post-checkout' }] }],
      ['a path that climbs out', { written: [good, { ...good, path: '../outside.md' }] }],
      ['a path through a symlink that leads out', { written: [good, { ...good, path: 'evil' }] }],
      ['over a folder', { written: [good, { ...good, path: 'docs/guide' }] }],
      ['a folder deleted', { written: [good], deleted: ['docs'] }],
      ['a deletion of nothing', { written: [good], deleted: ['no-such-file.md'] }],
      ['a deletion under .git/', { written: [good], deleted: ['.git/config'] }],
      ['an object named by a branch and path', { written: [good, { ...good, sha: 'main:README.md' }] }],
      ['more paths than a job may change', { written: [good], deleted: ['tiny.txt', 'empty.txt'] }],
    ];
    const other = await openWorkspace('agentjobs/tampered');
    try {
      for (const [what, change] of tampered) {
        const outcome = await other.restore({ ...changes, ...change }, 2).catch((error: unknown) => error);
        expect(outcome, what).not.toBe(true);
        expect(other.changedPaths(), what).toEqual([]);
        expect(readdirSync(other.dir), what).toEqual(['.git']);
      }
      // The good record alone is taken back.
      expect(await other.restore(changes, 2)).toBe(true);
      expect(other.changedPaths()).toEqual(['docs/new.md']);
    } finally {
      await other.close();
    }
  });
});
