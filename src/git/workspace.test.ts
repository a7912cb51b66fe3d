import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMirror } from './mirror.js';
import { isBinary, PathError, WorkspaceError } from './paths.js';
import { runGit } from './run.js';
import { Workspace } from './workspace.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};
const bot = { authorName: 'Agent Jobs', authorEmail: 'bot@example.com' };

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await runGit(args, { cwd, env: identity })).stdout.toString('utf8').trim();
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every file under `dir`, recursively, as relative paths. */
function filesOnDisk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

let root: string;
let mirrorPath: string;
let baseSha: string;
let dirCount = 0;
const nextDir = () => join(root, 'work', `job-${++dirCount}`);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-workspace-'));
  const upstream = join(root, 'upstream');
  mkdirSync(upstream);
  await git(upstream, 'init', '--quiet', '--initial-branch=main');
  write(upstream, 'README.md', '# Demo\nHello world\n');
  write(upstream, 'docs/index.md', 'Index\nSee the guide\n');
  write(upstream, 'docs/guide/intro.md', 'Intro line one\nneedle here\n');
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'first');
  write(upstream, 'images/logo.png', PNG);
  write(upstream, 'scripts/build.sh', '#!/bin/sh\necho build\n');
  chmodSync(join(upstream, 'scripts/build.sh'), 0o755);
  symlinkSync('docs/index.md', join(upstream, 'link-inside.md'));
  symlinkSync('docs', join(upstream, 'docs-link'));
  symlinkSync('../../etc/passwd', join(upstream, 'evil'));
  symlinkSync('/etc/passwd', join(upstream, 'abs-evil'));
  symlinkSync('.git/config', join(upstream, 'to-git'));
  symlinkSync('loop-b', join(upstream, 'loop-a'));
  symlinkSync('loop-a', join(upstream, 'loop-b'));
  symlinkSync('docs/nothing-here.md', join(upstream, 'dangling'));
  write(upstream, 'tiny.txt', 'ok\n');
  write(upstream, 'empty.txt', '');
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'second');
  await git(root, 'clone', '--quiet', '--bare', upstream, join(root, 'origin.git'));
  mirrorPath = await ensureMirror({
    mirrorsDir: join(root, 'mirrors'),
    projectId: 'demo',
    repository: join(root, 'origin.git'),
    env: {},
  });
  baseSha = await git(mirrorPath, 'rev-parse', 'refs/heads/main');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const ALL_FILES = [
  'README.md',
  'abs-evil',
  'dangling',
  'docs-link',
  'docs/guide/intro.md',
  'docs/index.md',
  'empty.txt',
  'evil',
  'images/logo.png',
  'link-inside.md',
  'loop-a',
  'loop-b',
  'scripts/build.sh',
  'tiny.txt',
  'to-git',
];

describe('Workspace', () => {
  let workspace: Workspace;
  const branch = 'agentjobs/job-1';

  beforeAll(async () => {
    workspace = await Workspace.create({ mirrorPath, dir: nextDir(), branch, baseRef: 'main' });
  });

  afterAll(async () => {
    await workspace.close();
  });

  it('starts at the base branch without writing any file', () => {
    expect(workspace.headCommit).toBe(baseSha);
    expect(readdirSync(workspace.dir)).toEqual(['.git']);
  });

  it('lists files, by folder, by glob and through a symlinked folder', async () => {
    expect(await workspace.listFiles()).toEqual(ALL_FILES);
    expect(await workspace.listFiles('.')).toEqual(ALL_FILES);
    expect(await workspace.listFiles('docs')).toEqual(['docs/guide/intro.md', 'docs/index.md']);
    expect(await workspace.listFiles(undefined, '*.md')).toEqual([
      'README.md',
      'docs/guide/intro.md',
      'docs/index.md',
      'link-inside.md',
    ]);
    expect(await workspace.listFiles('docs', 'guide/*.md')).toEqual(['docs/guide/intro.md']);
    expect(await workspace.listFiles(undefined, 'docs/**/*.md')).toEqual([
      'docs/guide/intro.md',
      'docs/index.md',
    ]);
    expect(await workspace.listFiles('docs-link')).toEqual(['docs/guide/intro.md', 'docs/index.md']);
    expect(await workspace.listFiles('nowhere')).toEqual([]);
    await expect(workspace.listFiles('../up')).rejects.toBeInstanceOf(PathError);
  });

  it('reads text, binary and symlinked files from the object store', async () => {
    expect((await workspace.readFile('README.md'))?.toString()).toBe('# Demo\nHello world\n');
    expect((await workspace.readFile('./docs/guide/../guide/intro.md'))?.toString()).toContain('needle');
    const logo = await workspace.readFile('images/logo.png');
    expect(logo?.equals(PNG)).toBe(true);
    expect(isBinary(logo as Buffer)).toBe(true);
    expect((await workspace.readFile('link-inside.md'))?.toString()).toBe('Index\nSee the guide\n');
    expect((await workspace.readFile('docs-link/guide/intro.md'))?.toString()).toContain('needle');
    expect(await workspace.readFile('missing.md')).toBeNull();
    expect(await workspace.readFile('dangling')).toBeNull();
    expect((await workspace.readFile('empty.txt'))?.length).toBe(0);
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
      Array.from({ length: 60 }, (_, index) => workspace.readFile(paths[index % 6] as string)),
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
    await expect(workspace.readFile('evil')).rejects.toMatchObject({
      name: 'PathError',
      code: 'outside_repository',
    });
    await expect(workspace.readFile('abs-evil')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.writeFile('evil', 'x')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.readFile('../README.md')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.readFile('/etc/passwd')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.readFile('.git/config')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.writeFile('.GIT/hooks/pre-commit', 'x')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.readFile('docs')).rejects.toMatchObject({ code: 'is_directory' });
    await expect(workspace.readFile('README.md/x')).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(workspace.writeFile('docs', 'x')).rejects.toMatchObject({ code: 'is_directory' });
    await expect(workspace.readFile('to-git')).rejects.toMatchObject({ code: 'outside_repository' });
    await expect(workspace.readFile('loop-a')).rejects.toMatchObject({ code: 'unsupported' });
    await expect(workspace.readFile('evil/x')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.moveFile('evil', 'elsewhere')).rejects.toMatchObject({ code: 'unsupported' });
    await expect(workspace.listFiles('evil')).rejects.toBeInstanceOf(PathError);
    await expect(workspace.search('x', { path: 'abs-evil' })).rejects.toBeInstanceOf(PathError);
  });

  it('searches committed files with fixed strings and regexes, capped', async () => {
    expect(await workspace.search('needle')).toEqual({
      matches: [{ path: 'docs/guide/intro.md', line: 2, text: 'needle here' }],
      truncated: false,
    });
    expect((await workspace.search('Hel+o', { regex: true })).matches).toEqual([
      { path: 'README.md', line: 2, text: 'Hello world' },
    ]);
    expect((await workspace.search('Hel+o')).matches).toEqual([]);
    expect(
      (await workspace.search('e', { path: 'docs' })).matches.every((m) => m.path.startsWith('docs/')),
    ).toBe(true);
    expect(await workspace.search('e', { limit: 2 })).toMatchObject({
      truncated: true,
      matches: { length: 2 },
    });
    await expect(workspace.search('(', { regex: true })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('enforces the file size limit', async () => {
    const small = await Workspace.create({
      mirrorPath,
      dir: nextDir(),
      branch: 'agentjobs/small',
      baseRef: 'main',
      maxFileBytes: 10,
    });
    try {
      await expect(small.readFile('README.md')).rejects.toMatchObject({ code: 'too_large' });
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

  it('writes, moves and deletes in the overlay, and on disk', async () => {
    await workspace.writeFile('README.md', '# Demo\nHello agents\n');
    await workspace.writeFile('notes/new/file.md', 'brand new needle\n');
    await workspace.writeFile('link-inside.md', 'Index through the link\n');
    await workspace.moveFile('docs/guide/intro.md', 'docs/intro.md');
    await workspace.moveFile('scripts/build.sh', 'scripts/make.sh');
    await workspace.deleteFile('images/logo.png');
    await workspace.deleteFile('evil');
    await workspace.writeFile('docs-link/through-link.md', 'written through a symlinked folder\n');
    await workspace.writeFile('scratch/deep/file.md', 'temporary\n');
    await workspace.deleteFile('scratch/deep/file.md');
    await workspace.writeFile('scratch', 'a file where an emptied folder was\n');
    await workspace.deleteFile('scratch');

    await expect(workspace.moveFile('docs/index.md', 'README.md')).rejects.toMatchObject({
      code: 'already_exists',
    });
    await expect(workspace.deleteFile('images/logo.png')).rejects.toMatchObject({ code: 'not_found' });
    await expect(workspace.writeFile('notes/new', 'x')).rejects.toMatchObject({ code: 'is_directory' });
    await expect(workspace.writeFile('notes/new/file.md/x', 'x')).rejects.toMatchObject({
      code: 'not_a_directory',
    });

    expect((await workspace.readFile('README.md'))?.toString()).toBe('# Demo\nHello agents\n');
    expect((await workspace.readFile('docs/index.md'))?.toString()).toBe('Index through the link\n');
    expect((await workspace.readFile('docs/intro.md'))?.toString()).toContain('needle');
    expect(await workspace.readFile('docs/guide/intro.md')).toBeNull();
    expect(await workspace.readFile('images/logo.png')).toBeNull();
    expect(await workspace.listFiles()).toEqual([
      'README.md',
      'abs-evil',
      'dangling',
      'docs-link',
      'docs/index.md',
      'docs/intro.md',
      'docs/through-link.md',
      'empty.txt',
      'link-inside.md',
      'loop-a',
      'loop-b',
      'notes/new/file.md',
      'scripts/make.sh',
      'tiny.txt',
      'to-git',
    ]);
    expect(await workspace.listFiles('notes')).toEqual(['notes/new/file.md']);
    expect((await workspace.search('needle')).matches.map((match) => match.path)).toEqual([
      'docs/intro.md',
      'notes/new/file.md',
    ]);
    expect(workspace.changedPaths()).toEqual([
      'README.md',
      'docs/guide/intro.md',
      'docs/index.md',
      'docs/intro.md',
      'docs/through-link.md',
      'evil',
      'images/logo.png',
      'notes/new/file.md',
      'scripts/build.sh',
      'scripts/make.sh',
    ]);
    // Written files are real files in the worktree; nothing else was checked out.
    expect(filesOnDisk(workspace.dir)).toEqual([
      '.git',
      'README.md',
      'docs/index.md',
      'docs/intro.md',
      'docs/through-link.md',
      'notes/new/file.md',
      'scripts/make.sh',
    ]);
    expect(readdirSync(workspace.dir).sort()).toEqual(['.git', 'README.md', 'docs', 'notes', 'scripts']);
    expect(readFileSync(join(workspace.dir, 'docs/index.md'), 'utf8')).toBe('Index through the link\n');
  });

  it('commits exactly the changes on the job branch and leaves the base alone', async () => {
    const sha = (await workspace.commit({ message: 'Update docs', ...bot })) as string;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(workspace.headCommit).toBe(sha);
    expect(workspace.changedPaths()).toEqual([]);
    expect(await git(mirrorPath, 'rev-parse', `refs/heads/${branch}`)).toBe(sha);
    expect(await git(mirrorPath, 'rev-parse', 'refs/heads/main')).toBe(baseSha);
    expect(await git(mirrorPath, 'rev-parse', `${sha}^`)).toBe(baseSha);
    expect(await git(mirrorPath, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', sha)).toBe(
      'Agent Jobs <bot@example.com>|Agent Jobs <bot@example.com>|Update docs',
    );
    const diff = await git(mirrorPath, 'diff', '--name-status', '--no-renames', 'main', sha);
    expect(diff.split('\n').sort()).toEqual(
      [
        'M\tREADME.md',
        'D\tdocs/guide/intro.md',
        'M\tdocs/index.md',
        'A\tdocs/intro.md',
        'A\tdocs/through-link.md',
        'D\tevil',
        'D\timages/logo.png',
        'A\tnotes/new/file.md',
        'D\tscripts/build.sh',
        'A\tscripts/make.sh',
      ].sort(),
    );
    // The mode travels with a move; the symlink stays a symlink.
    expect(await git(mirrorPath, 'ls-tree', sha, 'scripts/make.sh', 'link-inside.md')).toMatch(
      /^120000 blob \w+\tlink-inside\.md\n100755 blob \w+\tscripts\/make\.sh$/,
    );
    expect(await git(mirrorPath, 'show', `${sha}:docs/index.md`)).toBe('Index through the link');
    // Reads now come from the new commit.
    expect((await workspace.readFile('docs/intro.md'))?.toString()).toContain('needle');
    expect(await workspace.readFile('images/logo.png')).toBeNull();
  });

  it('returns null when nothing changed', async () => {
    expect(await workspace.commit({ message: 'Nothing', ...bot })).toBeNull();
    await workspace.writeFile('README.md', '# Demo\nHello agents\n');
    expect(await workspace.commit({ message: 'Same content', ...bot })).toBeNull();
    expect(workspace.changedPaths()).toEqual([]);
  });

  it('continues the job branch in a follow-up workspace', async () => {
    const first = workspace.headCommit;
    await workspace.close();
    await workspace.close();
    expect(await git(mirrorPath, 'worktree', 'list', '--porcelain')).not.toContain(workspace.dir);
    await expect(workspace.readFile('README.md')).rejects.toMatchObject({ code: 'closed' });

    const followUp = await Workspace.create({
      mirrorPath,
      dir: nextDir(),
      branch,
      baseRef: 'main',
      startFrom: 'branch',
    });
    try {
      expect(followUp.headCommit).toBe(first);
      expect((await followUp.readFile('README.md'))?.toString()).toBe('# Demo\nHello agents\n');
      await followUp.writeFile('docs/intro.md', 'rewritten\n');
      const second = await followUp.commit({ message: 'Follow-up', ...bot });
      expect(await git(mirrorPath, 'rev-list', '--count', `main..refs/heads/${branch}`)).toBe('2');
      expect(await git(mirrorPath, 'rev-parse', `${second}^`)).toBe(first);
    } finally {
      await followUp.close();
    }
  });

  it('starts over from the base on a retry with the same directory', async () => {
    const dir = nextDir();
    const crashed = await Workspace.create({ mirrorPath, dir, branch: 'agentjobs/retry', baseRef: 'main' });
    await crashed.writeFile('a.md', 'half done\n');
    // No close: the process "crashed". The retry takes the same directory.
    const retry = await Workspace.create({ mirrorPath, dir, branch: 'agentjobs/retry', baseRef: 'main' });
    try {
      expect(retry.changedPaths()).toEqual([]);
      expect(readdirSync(dir)).toEqual(['.git']);
    } finally {
      await retry.close();
      await crashed.close();
    }
  });

  it('refuses a missing base branch and invalid branch names', async () => {
    await expect(
      Workspace.create({ mirrorPath, dir: nextDir(), branch: 'x', baseRef: 'nope' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      Workspace.create({ mirrorPath, dir: nextDir(), branch: '-f', baseRef: 'main' }),
    ).rejects.toThrow(/Invalid branch name/);
    await expect(
      Workspace.create({ mirrorPath, dir: nextDir(), branch: 'a..b', baseRef: 'main' }),
    ).rejects.toThrow(/Invalid branch name/);
  });
});

describe('Workspace on a large repository', () => {
  const FILES = 5_000;

  it(`creates a workspace over ${FILES} files without writing them`, async () => {
    const origin = join(root, 'large.git');
    await git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
    // fast-import builds the 5,000-file commit in one process, in well under a second.
    const lines = [
      'commit refs/heads/main',
      'committer Upstream <upstream@example.com> 1700000000 +0000',
      'data 5',
      'bulk',
      '',
    ];
    for (let index = 0; index < FILES; index++) {
      const content = `file ${index}\n`;
      lines.push(
        `M 100644 inline dir${index % 50}/file${index}.md`,
        `data ${Buffer.byteLength(content)}`,
        content,
      );
    }
    await runGit(['fast-import', '--quiet'], { cwd: origin, input: `${lines.join('\n')}\n` });
    const largeMirror = await ensureMirror({
      mirrorsDir: join(root, 'mirrors'),
      projectId: 'large',
      repository: origin,
      env: {},
    });

    const started = performance.now();
    const workspace = await Workspace.create({
      mirrorPath: largeMirror,
      dir: nextDir(),
      branch: 'agentjobs/large',
      baseRef: 'main',
    });
    const createMs = performance.now() - started;
    try {
      expect(filesOnDisk(workspace.dir)).toEqual(['.git']);
      expect((await workspace.readFile('dir7/file4207.md'))?.toString()).toBe('file 4207\n');
      expect(await workspace.listFiles()).toHaveLength(FILES);
      await workspace.writeFile('dir7/file4207.md', 'changed\n');
      const sha = await workspace.commit({ message: 'One file', ...bot });
      expect(await git(largeMirror, 'diff', '--name-only', 'main', sha as string)).toBe('dir7/file4207.md');
      expect(filesOnDisk(workspace.dir)).toEqual(['.git', 'dir7/file4207.md']);
      console.info(`workspace create over ${FILES} files: ${createMs.toFixed(0)} ms`);
    } finally {
      await workspace.close();
    }
  });
});
