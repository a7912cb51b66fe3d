import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForGits } from '../../test/support/live-git.js';
import { CatFile } from './cat-file.js';
import { runGit } from './run.js';

let root: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentjobs-cat-file-')));
  await runGit(['init', '--quiet', root]);
  const identity = { GIT_AUTHOR_NAME: 'U', GIT_AUTHOR_EMAIL: 'u@example.com' };
  const env = { ...identity, GIT_COMMITTER_NAME: 'U', GIT_COMMITTER_EMAIL: 'u@example.com' };
  await runGit(['commit', '--quiet', '--allow-empty', '-m', 'first'], { cwd: root, env });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('CatFile', () => {
  it('kills its git when its signal aborts, and reads no more', async () => {
    const controller = new AbortController();
    const reader = new CatFile(root, controller.signal);
    expect(await reader.resolveCommit('HEAD')).toMatchObject({ commit: expect.any(String) });
    expect(await waitForGits(root, 'cat-file', 1)).toHaveLength(1);
    controller.abort();
    expect(await waitForGits(root, 'cat-file', 0)).toEqual([]);
    await expect(reader.read('HEAD')).rejects.toMatchObject({ reason: 'aborted' });
  });

  it('ends its git on close', async () => {
    const reader = new CatFile(root);
    expect(await reader.read('HEAD^{tree}')).toMatchObject({ type: 'tree' });
    expect(await waitForGits(root, 'cat-file', 1)).toHaveLength(1);
    await reader.close();
    expect(await waitForGits(root, 'cat-file', 0)).toEqual([]);
  });
});
