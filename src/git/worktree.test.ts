import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatFile } from './cat-file.js';
import { commitChanges } from './commit.js';
import { WorkspaceError } from './paths.js';
import { runGit } from './run.js';
import { assertCommittable, hashBlob, isPlainPath, withScratchIndex } from './worktree.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};

let root: string;
let head: string;
let headTree: string;
let objects: CatFile;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-worktree-'));
  await runGit(['init', '--quiet', '--initial-branch=main', root]);
  await runGit(['commit', '--quiet', '--allow-empty', '-m', 'first'], { cwd: root, env: identity });
  const { stdout } = await runGit(['rev-parse', 'HEAD', 'HEAD^{tree}'], { cwd: root });
  [head, headTree] = stdout.toString('utf8').trim().split('\n') as [string, string];
  objects = new CatFile(root);
});

afterAll(async () => {
  await objects.close();
  rmSync(root, { recursive: true, force: true });
});

describe('writing and committing by blob id', () => {
  it('commits the stored bytes under the exact path, however git would read it as a line', async () => {
    const sha = await hashBlob(root, Buffer.from('mine\n'));
    // Not reachable through resolveRepoPath; the pipeline must not reinterpret it either.
    const path = '"/etc/passwd"';
    await assertCommittable(root, path, { mode: '100644', sha });
    const result = await commitChanges({
      dir: root,
      head,
      headTree,
      written: new Map([[path, { mode: '100644', sha }]]),
      deleted: new Set(),
      message: 'quoted',
      authorName: 'Bot',
      authorEmail: 'bot@example.com',
      objects,
    });
    const listing = await runGit(['ls-tree', '-r', '-z', result?.commit ?? 'HEAD'], { cwd: root });
    expect(listing.stdout.toString('utf8')).toBe(`100644 blob ${sha}\t"/etc/passwd"\0`);
    await runGit(['update-ref', 'HEAD', head], { cwd: root });
  });

  it.each(['.git./config', 'GIT~1/config', '.git /hooks/x'])(
    'refuses a path git would drop (%j) instead of reporting it written',
    async (path) => {
      const sha = await hashBlob(root, Buffer.from('x\n'));
      const refused = assertCommittable(root, path, { mode: '100644', sha });
      await expect(refused).rejects.toThrow(WorkspaceError);
      await expect(refused).rejects.toThrow(/git cannot commit a file at/);
    },
  );

  it('fails a commit that git would make without one of the paths', async () => {
    const sha = await hashBlob(root, Buffer.from('x\n'));
    const commit = commitChanges({
      dir: root,
      head,
      headTree,
      written: new Map([
        ['ok.md', { mode: '100644', sha }],
        ['.git./config', { mode: '100644', sha }],
      ]),
      deleted: new Set(),
      message: 'drop',
      authorName: 'Bot',
      authorEmail: 'bot@example.com',
      objects,
    });
    await expect(commit).rejects.toThrow(/left changes out of the commit/);
  });
});

describe('plain paths, which git commits without being asked', () => {
  const plain = ['docs/guide.md', 'git/config', 'GIT/x', 'a..b/c.', '-x', 'git', 'a_b/C-D.E.f', '1/2/3'];
  const asked = [
    '.git/x',
    '.github/ci.yml',
    'GIT~1/config',
    'x/.git',
    'é.md',
    'a b.md',
    'a\\b',
    '.',
    'a/./b',
  ];

  it.each(plain)('knows %j is plain, and git agrees it commits it', async (path) => {
    expect(isPlainPath(path)).toBe(true);
    const sha = await hashBlob(root, Buffer.from('x\n'));
    const warnings = await withScratchIndex(
      root,
      new Map([[path, { mode: '100644', sha }]]),
      async (_env, found) => found,
    );
    expect(warnings).toBe('');
  });

  it.each(asked)('asks git about %j', (path) => {
    expect(isPlainPath(path)).toBe(false);
  });

  it('starts no git for a plain path, and asks git about any other', async () => {
    // Not a repository: a git process started there fails.
    const nowhere = mkdtempSync(join(tmpdir(), 'agentjobs-no-repo-'));
    try {
      const sha = '0123456789abcdef0123456789abcdef01234567';
      await assertCommittable(nowhere, 'docs/new-page.md', { mode: '100644', sha });
      await assertCommittable(nowhere, 'bin/run', { mode: '100755', sha });
      await expect(assertCommittable(nowhere, '.github/x.yml', { mode: '100644', sha })).rejects.toThrow();
      // A link is always asked about (git's rules for links differ: `.gitmodules`).
      await expect(assertCommittable(nowhere, 'docs/link', { mode: '120000', sha })).rejects.toThrow();
    } finally {
      rmSync(nowhere, { recursive: true, force: true });
    }
  });
});
