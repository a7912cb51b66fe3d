import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnInGroup } from '../../test/support/processes.js';
import { ensureMirror, MIRROR_REFSPEC, MirrorError, normalizeRepository } from './mirror.js';
import { pushBranch } from './push.js';
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

let root: string;
let upstream: string;
let origin: string;
let mirrorsDir: string;

/** Commits a file in the upstream work repository and pushes it to the bare origin. */
async function upstreamCommit(path: string, content: string, branch = 'main'): Promise<string> {
  if ((await git(upstream, 'branch', '--show-current')) !== branch)
    await git(upstream, 'checkout', '--quiet', branch);
  writeFileSync(join(upstream, path), content);
  await git(upstream, 'add', path);
  await git(upstream, 'commit', '--quiet', '-m', `change ${path}`);
  await git(upstream, 'push', '--quiet', 'origin', branch);
  return git(upstream, 'rev-parse', 'HEAD');
}

async function refs(repository: string): Promise<string> {
  return git(repository, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads');
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-mirror-'));
  mirrorsDir = join(root, 'mirrors');
  origin = join(root, 'origin.git');
  upstream = join(root, 'upstream');
  await git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  await git(root, 'clone', '--quiet', origin, upstream);
  await git(upstream, 'checkout', '--quiet', '-b', 'main');
  await upstreamCommit('README.md', 'hello\n');
  await git(upstream, 'checkout', '--quiet', '-b', 'feature');
  await upstreamCommit('feature.md', 'feature\n', 'feature');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('ensureMirror', () => {
  it('makes a bare mirror whose branches are the upstream branches', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p1', repository: origin, env: {} });
    expect(mirror).toBe(join(mirrorsDir, 'p1.git'));
    expect(await git(mirror, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(await git(mirror, 'config', '--get-all', 'remote.origin.fetch')).toBe(MIRROR_REFSPEC);
    expect(await git(mirror, 'config', 'remote.origin.url')).toBe(origin);
    expect(await refs(mirror)).toBe(await refs(origin));
  });

  it('fetches new upstream commits and prunes deleted branches on the next call', async () => {
    const head = await upstreamCommit('README.md', 'hello again\n');
    await git(origin, 'branch', '--quiet', '-D', 'feature');
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p1', repository: origin, env: {} });
    expect(await git(mirror, 'rev-parse', 'refs/heads/main')).toBe(head);
    expect(await refs(mirror)).toBe(`refs/heads/main ${head}`);
  });

  it('serializes concurrent calls for the same project', async () => {
    const calls = Array.from({ length: 4 }, () =>
      ensureMirror({ mirrorsDir, projectId: 'p2', repository: pathToFileURL(origin).href, env: {} }),
    );
    const paths = await Promise.all(calls);
    expect(new Set(paths)).toEqual(new Set([join(mirrorsDir, 'p2.git')]));
    expect(await refs(paths[0] as string)).toBe(await refs(origin));
  });

  it('refuses repositories with credentials or unsafe transports, and bad project ids', async () => {
    const mirror = (repository: string, projectId = 'bad') =>
      ensureMirror({ mirrorsDir, projectId, repository, env: {} });
    await expect(mirror('https://user:token@example.com/repo.git')).rejects.toBeInstanceOf(MirrorError);
    await expect(mirror('https://x-access-token@example.com/repo.git')).rejects.toThrow(/credentials/);
    await expect(mirror('http://example.com/repo.git')).rejects.toThrow(/https/);
    await expect(mirror('http://10.0.0.1/repo.git')).rejects.toThrow(/https/);
    await expect(mirror('ext::sh -c touch% /tmp/pwned')).rejects.toBeInstanceOf(MirrorError);
    await expect(mirror(origin, '../escape')).rejects.toThrow(/project id/);
    expect(normalizeRepository('relative/repo')).toBe(join(process.cwd(), 'relative/repo'));
    expect(normalizeRepository('https://example.com/a/b.git')).toBe('https://example.com/a/b.git');
    // Loopback only: a token sent there never crosses a network.
    expect(normalizeRepository('http://127.0.0.1:8080/a/b.git')).toBe('http://127.0.0.1:8080/a/b.git');
    expect(normalizeRepository('http://localhost/a/b.git')).toBe('http://localhost/a/b.git');
  });

  it('fails with a GitError and leaves no half-made mirror when the repository does not exist', async () => {
    await expect(
      ensureMirror({ mirrorsDir, projectId: 'missing', repository: join(root, 'nope.git'), env: {} }),
    ).rejects.toMatchObject({ name: 'GitError', subcommand: 'fetch' });
    await expect(
      runGit(['rev-parse', '--git-dir'], { cwd: join(mirrorsDir, 'missing.git') }),
    ).rejects.toThrow();
  });

  it('keeps a job branch that a worktree is using, through fetch and prune', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p3', repository: origin, env: {} });
    // The job branch also exists upstream (pushed by an earlier run) and moves there meanwhile.
    await git(mirror, 'push', '--quiet', 'origin', 'refs/heads/main:refs/heads/agentjobs/busy');
    await ensureMirror({ mirrorsDir, projectId: 'p3', repository: origin, env: {} });
    const workspace = await Workspace.create({
      mirrorPath: mirror,
      dir: join(root, 'work', 'busy'),
      branch: 'agentjobs/busy',
      baseRef: 'main',
    });
    try {
      await workspace.writeFile('busy.md', 'work in progress\n');
      const local = await workspace.commit({ message: 'Busy', ...bot });
      await upstreamCommit('README.md', 'upstream moved\n');
      await git(origin, 'branch', '--quiet', '-f', 'agentjobs/busy', 'main');
      await git(origin, 'branch', '--quiet', 'unpushed-elsewhere', 'main');
      await ensureMirror({ mirrorsDir, projectId: 'p3', repository: origin, env: {} });
      expect(await git(mirror, 'rev-parse', 'refs/heads/agentjobs/busy')).toBe(local);
      expect(await git(mirror, 'rev-parse', 'refs/heads/main')).toBe(await git(origin, 'rev-parse', 'main'));

      await git(origin, 'branch', '--quiet', '-D', 'agentjobs/busy');
      await ensureMirror({ mirrorsDir, projectId: 'p3', repository: origin, env: {} });
      expect(await git(mirror, 'rev-parse', 'refs/heads/agentjobs/busy')).toBe(local);
      expect((await workspace.readFile('busy.md'))?.toString()).toBe('work in progress\n');
    } finally {
      await workspace.close();
    }
    // Once the worktree is gone, the branch follows upstream again (here: pruned).
    await ensureMirror({ mirrorsDir, projectId: 'p3', repository: origin, env: {} });
    await expect(
      git(mirror, 'rev-parse', '--verify', '--quiet', 'refs/heads/agentjobs/busy'),
    ).rejects.toThrow();
  });
});

describe('ensureMirror, doing no more than it must', () => {
  it('writes the repository into the mirror only when it changed, and fetches from the new one', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p5', repository: origin, env: {} });
    const config = join(mirror, 'config');
    const before = statSync(config).ino;
    await ensureMirror({ mirrorsDir, projectId: 'p5', repository: origin, env: {} });
    // `git config` writes a new file (a lock file renamed into place) even for the same value.
    expect(statSync(config).ino).toBe(before);

    // Moved to a copy whose path git quotes in its config (a space and a '#'): written, and fetched from.
    const moved = join(root, 'moved # here.git');
    await git(root, 'clone', '--quiet', '--bare', origin, moved);
    await git(moved, 'branch', '--quiet', 'only-in-the-copy', 'main');
    await ensureMirror({ mirrorsDir, projectId: 'p5', repository: moved, env: {} });
    expect(await git(mirror, 'config', 'remote.origin.url')).toBe(moved);
    expect(await refs(mirror)).toBe(await refs(moved));
    const quoted = statSync(config).ino;
    await ensureMirror({ mirrorsDir, projectId: 'p5', repository: moved, env: {} });
    expect(statSync(config).ino).not.toBe(quoted);

    await ensureMirror({ mirrorsDir, projectId: 'p5', repository: origin, env: {} });
    expect(await git(mirror, 'config', 'remote.origin.url')).toBe(origin);
    expect(await refs(mirror)).toBe(await refs(origin));
  });

  it('forgets a worktree whose folder is gone, so that its branch follows upstream again', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p6', repository: origin, env: {} });
    await git(mirror, 'push', '--quiet', 'origin', 'refs/heads/main:refs/heads/agentjobs/crashed');
    await ensureMirror({ mirrorsDir, projectId: 'p6', repository: origin, env: {} });
    const dir = join(root, 'work', 'crashed');
    const busy = await Workspace.create({
      mirrorPath: mirror,
      dir: join(root, 'work', 'alive'),
      branch: 'agentjobs/alive',
      baseRef: 'main',
    });
    const crashed = await Workspace.create({
      mirrorPath: mirror,
      dir,
      branch: 'agentjobs/crashed',
      baseRef: 'main',
    });
    try {
      await crashed.writeFile('lost.md', 'lost\n');
      await crashed.commit({ message: 'Lost', ...bot });
      // The process died: its folder went away without `git worktree remove`.
      rmSync(dir, { recursive: true, force: true });
      const moved = await upstreamCommit('README.md', 'moved on\n');
      await git(origin, 'branch', '--quiet', '-f', 'agentjobs/crashed', 'main');
      await ensureMirror({ mirrorsDir, projectId: 'p6', repository: origin, env: {} });
      expect(await git(mirror, 'rev-parse', 'refs/heads/agentjobs/crashed')).toBe(moved);
      expect(await git(mirror, 'worktree', 'list', '--porcelain')).not.toContain('crashed');
      // The live worktree's branch is still left alone.
      expect(await git(mirror, 'worktree', 'list', '--porcelain')).toContain(
        'branch refs/heads/agentjobs/alive',
      );
    } finally {
      await busy.close();
      await crashed.close();
    }
  });
});

describe('the mirror lock', () => {
  it('makes a fetch wait while another process holds the mirror, and go on once it is gone', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p2', repository: origin, env: {} });
    const holder = spawnInGroup(
      process.execPath,
      ['--import', 'tsx', resolve('test/support/lock-contender.ts'), 'hold', `${mirror}.lock`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((done) => holder.on('exit', done));
    try {
      await new Promise((done) => holder.stdout?.on('data', done));
      await expect(
        ensureMirror({
          mirrorsDir,
          projectId: 'p2',
          repository: origin,
          env: {},
          signal: AbortSignal.timeout(500),
        }),
      ).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      process.kill(-(holder.pid as number), 'SIGKILL');
    }
    await exited;
    // The killed holder's lock file is still there; the next caller takes it over.
    expect(await ensureMirror({ mirrorsDir, projectId: 'p2', repository: origin, env: {} })).toBe(mirror);
  });
});

describe('pushBranch', () => {
  it('pushes the job branch to origin, and force-pushes a restarted one', async () => {
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p4', repository: origin, env: {} });
    const branch = 'agentjobs/push-me';
    const first = await Workspace.create({
      mirrorPath: mirror,
      dir: join(root, 'work', 'push-1'),
      branch,
      baseRef: 'main',
    });
    await first.writeFile('pushed.md', 'one\n');
    const sha = await first.commit({ message: 'Push me', ...bot });
    await first.close();
    await pushBranch({ mirrorPath: mirror, branch, env: {} });
    expect(await git(origin, 'rev-parse', `refs/heads/${branch}`)).toBe(sha);
    expect(await git(origin, 'show', `${branch}:pushed.md`)).toBe('one');

    // A retry starts again from the base: its commit is not a descendant, so only a force push lands.
    const retry = await Workspace.create({
      mirrorPath: mirror,
      dir: join(root, 'work', 'push-2'),
      branch,
      baseRef: 'main',
    });
    await retry.writeFile('pushed.md', 'two\n');
    const again = await retry.commit({ message: 'Push me again', ...bot });
    await retry.close();
    await expect(pushBranch({ mirrorPath: mirror, branch, env: {} })).rejects.toMatchObject({
      subcommand: 'push',
    });
    await pushBranch({ mirrorPath: mirror, branch, env: {}, force: true });
    expect(await git(origin, 'rev-parse', `refs/heads/${branch}`)).toBe(again);
    await expect(pushBranch({ mirrorPath: mirror, branch: '--delete', env: {} })).rejects.toBeInstanceOf(
      MirrorError,
    );
  });
});

describe('mirror layout', () => {
  it('leaves nothing but finished mirrors in the mirrors folder (no temporary ones)', () => {
    expect(readdirSync(mirrorsDir).sort()).toEqual([
      'p1.git',
      'p2.git',
      'p3.git',
      'p4.git',
      'p5.git',
      'p6.git',
    ]);
  });
});
