import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bot,
  filesOnDisk,
  fx,
  git,
  nextDir,
  openWorkspace,
  useWorkspace,
  useWorkspaceFixture,
} from '../../test/support/workspace-fixture.js';
import { ensureMirror } from './mirror.js';
import { runGit } from './run.js';
import { Workspace } from './workspace.js';

useWorkspaceFixture();

describe('Workspace commits', () => {
  const branch = 'agentjobs/job-1';
  const opened = useWorkspace(branch);

  it('writes, moves and deletes in the overlay, and on disk', async () => {
    await opened.workspace.writeFile('README.md', '# Demo\nHello agents\n');
    await opened.workspace.writeFile('notes/new/file.md', 'brand new needle\n');
    await opened.workspace.writeFile('link-inside.md', 'Index through the link\n');
    await opened.workspace.moveFile('docs/guide/intro.md', 'docs/intro.md');
    await opened.workspace.moveFile('scripts/build.sh', 'scripts/make.sh');
    await opened.workspace.deleteFile('images/logo.png');
    await opened.workspace.deleteFile('evil');
    await opened.workspace.writeFile('docs-link/through-link.md', 'written through a symlinked folder\n');
    await opened.workspace.writeFile('scratch/deep/file.md', 'temporary\n');
    await opened.workspace.deleteFile('scratch/deep/file.md');
    await opened.workspace.writeFile('scratch', 'a file where an emptied folder was\n');
    await opened.workspace.deleteFile('scratch');

    await expect(opened.workspace.moveFile('docs/index.md', 'README.md')).rejects.toMatchObject({
      reason: 'already_exists',
    });
    await expect(opened.workspace.deleteFile('images/logo.png')).rejects.toMatchObject({
      reason: 'not_found',
    });
    await expect(opened.workspace.writeFile('notes/new', 'x')).rejects.toMatchObject({
      reason: 'is_directory',
    });
    await expect(opened.workspace.writeFile('notes/new/file.md/x', 'x')).rejects.toMatchObject({
      reason: 'not_a_directory',
    });

    expect((await opened.workspace.readFile('README.md'))?.toString()).toBe('# Demo\nHello agents\n');
    expect((await opened.workspace.readFile('docs/index.md'))?.toString()).toBe('Index through the link\n');
    expect((await opened.workspace.readFile('docs/intro.md'))?.toString()).toContain('needle');
    expect(await opened.workspace.readFile('docs/guide/intro.md')).toBeNull();
    expect(await opened.workspace.readFile('images/logo.png')).toBeNull();
    expect(await opened.workspace.listFiles()).toEqual([
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
    expect(await opened.workspace.listFiles('notes')).toEqual(['notes/new/file.md']);
    expect((await opened.workspace.search('needle')).matches.map((match) => match.path)).toEqual([
      'docs/intro.md',
      'notes/new/file.md',
    ]);
    expect(opened.workspace.changedPaths()).toEqual([
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
    expect(filesOnDisk(opened.workspace.dir)).toEqual([
      '.git',
      'README.md',
      'docs/index.md',
      'docs/intro.md',
      'docs/through-link.md',
      'notes/new/file.md',
      'scripts/make.sh',
    ]);
    expect(readdirSync(opened.workspace.dir).sort()).toEqual([
      '.git',
      'README.md',
      'docs',
      'notes',
      'scripts',
    ]);
    expect(readFileSync(join(opened.workspace.dir, 'docs/index.md'), 'utf8')).toBe(
      'Index through the link\n',
    );
  });
  it('commits exactly the changes on the job branch and leaves the base alone', async () => {
    const sha = (await opened.workspace.commit({ message: 'Update docs', ...bot })) as string;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(opened.workspace.headCommit).toBe(sha);
    expect(opened.workspace.changedPaths()).toEqual([]);
    expect(await git(fx.mirrorPath, 'rev-parse', `refs/heads/${branch}`)).toBe(sha);
    expect(await git(fx.mirrorPath, 'rev-parse', 'refs/heads/main')).toBe(fx.baseSha);
    expect(await git(fx.mirrorPath, 'rev-parse', `${sha}^`)).toBe(fx.baseSha);
    expect(await git(fx.mirrorPath, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', sha)).toBe(
      'Agent Jobs <bot@example.com>|Agent Jobs <bot@example.com>|Update docs',
    );
    const diff = await git(fx.mirrorPath, 'diff', '--name-status', '--no-renames', 'main', sha);
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
    expect(await git(fx.mirrorPath, 'ls-tree', sha, 'scripts/make.sh', 'link-inside.md')).toMatch(
      /^120000 blob \w+\tlink-inside\.md\n100755 blob \w+\tscripts\/make\.sh$/,
    );
    expect(await git(fx.mirrorPath, 'show', `${sha}:docs/index.md`)).toBe('Index through the link');
    // Reads now come from the new commit.
    expect((await opened.workspace.readFile('docs/intro.md'))?.toString()).toContain('needle');
    expect(await opened.workspace.readFile('images/logo.png')).toBeNull();
  });

  it('returns null when nothing changed', async () => {
    expect(await opened.workspace.commit({ message: 'Nothing', ...bot })).toBeNull();
    await opened.workspace.writeFile('README.md', '# Demo\nHello agents\n');
    expect(await opened.workspace.commit({ message: 'Same content', ...bot })).toBeNull();
    expect(opened.workspace.changedPaths()).toEqual([]);
  });

  it('continues the job branch in a follow-up workspace', async () => {
    const first = opened.workspace.headCommit;
    await opened.workspace.close();
    await opened.workspace.close();
    expect(await git(fx.mirrorPath, 'worktree', 'list', '--porcelain')).not.toContain(opened.workspace.dir);
    await expect(opened.workspace.readFile('README.md')).rejects.toMatchObject({ reason: 'closed' });

    const followUp = await openWorkspace(branch, { startFrom: 'branch' });
    try {
      expect(followUp.headCommit).toBe(first);
      expect((await followUp.readFile('README.md'))?.toString()).toBe('# Demo\nHello agents\n');
      await followUp.writeFile('docs/intro.md', 'rewritten\n');
      const second = await followUp.commit({ message: 'Follow-up', ...bot });
      expect(await git(fx.mirrorPath, 'rev-list', '--count', `main..refs/heads/${branch}`)).toBe('2');
      expect(await git(fx.mirrorPath, 'rev-parse', `${second}^`)).toBe(first);
    } finally {
      await followUp.close();
    }
  });

  it('starts over from the base on a retry with the same directory', async () => {
    const dir = nextDir();
    const crashed = await openWorkspace('agentjobs/retry', { dir });
    await crashed.writeFile('a.md', 'half done\n');
    // No close: the process "crashed". The retry takes the same directory.
    const retry = await openWorkspace('agentjobs/retry', { dir });
    try {
      expect(retry.changedPaths()).toEqual([]);
      expect(readdirSync(dir)).toEqual(['.git']);
    } finally {
      await retry.close();
      await crashed.close();
    }
  });

  it('refuses a missing base branch and invalid branch names', async () => {
    await expect(openWorkspace('x', { baseRef: 'nope' })).rejects.toMatchObject({
      reason: 'not_found',
    });
    await expect(openWorkspace('-f')).rejects.toThrow(/Invalid branch name/);
    await expect(openWorkspace('a..b')).rejects.toThrow(/Invalid branch name/);
  });
});

describe('Workspace on a large repository', () => {
  const FILES = 5_000;

  it(`creates a workspace over ${FILES} files without writing them`, async () => {
    const origin = join(fx.root, 'large.git');
    await git(fx.root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
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
      mirrorsDir: join(fx.root, 'mirrors'),
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

describe('Workspace base merge', () => {
  it('merges nothing into a branch it made from the base, and a moved base into a branch it continues', async () => {
    // A first run's branch starts at the base as the run found it: no merge, and no git to learn so.
    const fresh = await openWorkspace('agentjobs/made-at-base');
    const continued = 'agentjobs/continued';
    await git(fx.mirrorPath, 'update-ref', `refs/heads/${continued}`, fx.baseSha);
    const followUp = await openWorkspace(continued, { startFrom: 'branch' });
    const moved = await git(
      fx.mirrorPath,
      'commit-tree',
      `${fx.baseSha}^{tree}`,
      '-p',
      fx.baseSha,
      '-m',
      'Moved on',
    );
    await git(fx.mirrorPath, 'update-ref', 'refs/heads/main', moved);
    try {
      expect(await fresh.mergeBase('main', bot)).toMatchObject({ status: 'up-to-date', commit: null });
      expect(fresh.headCommit).toBe(fx.baseSha);
      // A follow-up's branch still gets what the base has now.
      const merged = await followUp.mergeBase('main', bot);
      expect(merged.status).toBe('merged');
      expect(await git(fx.mirrorPath, 'rev-parse', `${merged.commit}^2`)).toBe(moved);
    } finally {
      await git(fx.mirrorPath, 'update-ref', 'refs/heads/main', fx.baseSha);
      await fresh.close();
      await followUp.close();
    }
  });
});

describe('Workspace rebuild on the base', () => {
  it("makes a branch again on the moved base, with the branch's changes in one commit", async () => {
    const branch = 'agentjobs/rebuilt';
    await git(fx.mirrorPath, 'update-ref', `refs/heads/${branch}`, fx.baseSha);
    const first = await openWorkspace(branch, { startFrom: 'branch' });
    await first.writeFile('job-page.md', 'from the job\n');
    await first.commit({ message: 'One', ...bot });
    await first.writeFile('job-second.md', 'more from the job\n');
    const jobHead = (await first.commit({ message: 'Two', ...bot })) as string;
    await first.close();
    const moved = await git(
      fx.mirrorPath,
      'commit-tree',
      `${fx.baseSha}^{tree}`,
      '-p',
      fx.baseSha,
      '-m',
      'Moved',
    );
    await git(fx.mirrorPath, 'update-ref', 'refs/heads/main', moved);
    const again = await openWorkspace(branch, { startFrom: 'branch' });
    try {
      const rebuilt = await again.mergeBase('main', bot, true);
      expect(rebuilt).toMatchObject({ status: 'merged', conflicts: [], rebuiltFrom: jobHead });
      // One parent, the base as it is now; the tree holds both of the job's commits.
      expect(await git(fx.mirrorPath, 'rev-parse', `${rebuilt.commit}^@`)).toBe(moved);
      expect(await git(fx.mirrorPath, 'rev-parse', `refs/heads/${branch}`)).toBe(rebuilt.commit);
      expect((await again.readFile('job-page.md'))?.toString()).toBe('from the job\n');
      expect((await again.readFile('job-second.md'))?.toString()).toBe('more from the job\n');
    } finally {
      await git(fx.mirrorPath, 'update-ref', 'refs/heads/main', fx.baseSha);
      await again.close();
    }
    // On a base that did not move, the branch's commits are squashed onto it all the same.
    const squashed = await openWorkspace(branch, { startFrom: 'branch' });
    try {
      const head = squashed.headCommit;
      const rebuilt = await squashed.mergeBase('main', bot, true);
      expect(rebuilt).toMatchObject({ status: 'merged', rebuiltFrom: head });
      expect(await git(fx.mirrorPath, 'rev-parse', `${rebuilt.commit}^@`)).toBe(fx.baseSha);
    } finally {
      await squashed.close();
    }
  });
});
