import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushRef } from './push.js';
import { GitError, runGit } from './run.js';

let root: string;
let upstream: string;
let mirror: string;
let pushes: string;
const commits: string[] = [];

async function git(cwd: string, args: string[], input?: string): Promise<string> {
  return (await runGit(args, { cwd, ...(input === undefined ? {} : { input }) })).stdout
    .toString('utf8')
    .trim();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-push-'));
  upstream = join(root, 'upstream.git');
  mirror = join(root, 'mirror.git');
  pushes = join(root, 'pushes.log');
  await runGit(['init', '--quiet', '--bare', upstream]);
  await runGit(['init', '--quiet', '--bare', mirror]);
  await git(mirror, ['config', 'remote.origin.url', upstream]);
  // Each `git push` that reaches the upstream runs its pre-receive hook once, whatever its refs.
  const hook = join(upstream, 'hooks', 'pre-receive');
  writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\necho push >> "${pushes}"\n`);
  chmodSync(hook, 0o755);
  const tree = await git(mirror, ['mktree'], '');
  const env = {
    GIT_AUTHOR_NAME: 'U',
    GIT_AUTHOR_EMAIL: 'u@e.x',
    GIT_COMMITTER_NAME: 'U',
    GIT_COMMITTER_EMAIL: 'u@e.x',
  };
  for (const message of ['one', 'two', 'three']) {
    const { stdout } = await runGit(['commit-tree', tree], { cwd: mirror, env, input: `${message}\n` });
    commits.push(stdout.toString('utf8').trim());
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const pushCount = () => readFileSync(pushes, 'utf8').split('\n').filter(Boolean).length;

describe('pushRef', () => {
  it('carries the refs that wait behind a push in one push, and each run learns its own result', async () => {
    // `taken` already holds a commit the next push does not descend from: that push is refused.
    await git(mirror, ['update-ref', 'refs/heads/taken', commits[0] as string]);
    await pushRef({
      mirrorPath: mirror,
      source: 'refs/heads/taken',
      destination: 'refs/heads/taken',
      env: {},
    });
    writeFileSync(pushes, '');
    for (const name of ['a', 'b', 'c', 'd'])
      await git(mirror, ['update-ref', `refs/heads/${name}`, commits[1] as string]);

    const results = await Promise.allSettled([
      pushRef({ mirrorPath: mirror, source: 'refs/heads/a', destination: 'refs/heads/a', env: {} }),
      pushRef({ mirrorPath: mirror, source: 'refs/heads/b', destination: 'refs/heads/b', env: {} }),
      pushRef({ mirrorPath: mirror, source: commits[2] as string, destination: 'refs/heads/taken', env: {} }),
      pushRef({ mirrorPath: mirror, source: 'refs/heads/c', destination: 'refs/heads/c', env: {} }),
      pushRef({ mirrorPath: mirror, source: 'refs/heads/d', destination: 'refs/heads/d', env: {} }),
    ]);

    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const refused = (results[2] as PromiseRejectedResult).reason as GitError;
    expect(refused).toBeInstanceOf(GitError);
    expect(refused.stderr).toMatch(/refs\/heads\/taken.*\[rejected\].*non-fast-forward/);
    expect(refused.stderr).not.toMatch(/refs\/heads\/[abcd]\b/);
    // The first push went alone; the four that queued behind it went together.
    expect(pushCount()).toBe(2);
    for (const name of ['a', 'b', 'c', 'd'])
      expect(await git(upstream, ['rev-parse', `refs/heads/${name}`])).toBe(commits[1]);
    expect(await git(upstream, ['rev-parse', 'refs/heads/taken'])).toBe(commits[0]);
  });

  it('pushes two refspecs for one destination in two pushes, in order', async () => {
    writeFileSync(pushes, '');
    await Promise.all([
      pushRef({ mirrorPath: mirror, source: commits[0] as string, destination: 'refs/heads/twice', env: {} }),
      pushRef({ mirrorPath: mirror, source: commits[1] as string, destination: 'refs/heads/other', env: {} }),
      pushRef({
        mirrorPath: mirror,
        source: commits[2] as string,
        destination: 'refs/heads/twice',
        force: true,
        env: {},
      }),
    ]);
    expect(await git(upstream, ['rev-parse', 'refs/heads/twice'])).toBe(commits[2]);
    expect(pushCount()).toBe(2);
  });

  it('overwrites a ref with a lease only while it is still at the commit expected', async () => {
    await pushRef({
      mirrorPath: mirror,
      source: commits[0] as string,
      destination: 'refs/heads/leased',
      env: {},
    });
    // Someone else's commit is there, not the one the run read: the branch is kept.
    const stale = pushRef({
      mirrorPath: mirror,
      source: commits[1] as string,
      destination: 'refs/heads/leased',
      expect: commits[2] as string,
      env: {},
    });
    await expect(stale).rejects.toMatchObject({
      stderr: expect.stringMatching(/refs\/heads\/leased.*\[rejected\]/),
    });
    expect(await git(upstream, ['rev-parse', 'refs/heads/leased'])).toBe(commits[0]);
    // Still where the run read it: replaced, though not a fast-forward.
    await pushRef({
      mirrorPath: mirror,
      source: commits[1] as string,
      destination: 'refs/heads/leased',
      expect: commits[0] as string,
      env: {},
    });
    expect(await git(upstream, ['rev-parse', 'refs/heads/leased'])).toBe(commits[1]);
  });

  it('withdraws a ref whose run stops while it waits for its batch', async () => {
    await git(mirror, ['update-ref', 'refs/heads/withdrawn', commits[1] as string]);
    await git(mirror, ['update-ref', 'refs/heads/first', commits[1] as string]);
    const controller = new AbortController();
    const first = pushRef({
      mirrorPath: mirror,
      source: 'refs/heads/first',
      destination: 'refs/heads/first',
      env: {},
    });
    const withdrawn = pushRef({
      mirrorPath: mirror,
      source: 'refs/heads/withdrawn',
      destination: 'refs/heads/withdrawn',
      env: {},
      signal: controller.signal,
    });
    controller.abort();
    await expect(withdrawn).rejects.toMatchObject({ reason: 'aborted' });
    await first;
    await expect(git(upstream, ['rev-parse', '--verify', 'refs/heads/withdrawn'])).rejects.toThrow();
  });

  it('fails every ref of a push that fails as a whole', async () => {
    const broken = join(root, 'broken.git');
    await runGit(['init', '--quiet', '--bare', broken]);
    await git(broken, ['config', 'remote.origin.url', join(root, 'nowhere.git')]);
    const results = await Promise.allSettled(
      ['x', 'y', 'z'].map((name) =>
        pushRef({
          mirrorPath: broken,
          source: commits[0] as string,
          destination: `refs/heads/${name}`,
          env: {},
        }),
      ),
    );
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(GitError);
  });
});
