import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChanges } from './diff.js';
import { runGit } from './run.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};

let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-diff-'));
  const git = (...args: string[]) => runGit(args, { cwd: root, env: identity });
  await runGit(['init', '--quiet', '--initial-branch=main', root]);
  writeFileSync(join(root, 'intro.md'), '# Intro\n');
  await git('add', 'intro.md');
  await git('commit', '--quiet', '-m', 'first');
  await git('switch', '--quiet', '-c', 'job');
  writeFileSync(join(root, 'intro.md'), '# Introduction\n');
  await git('commit', '--quiet', '-am', 'Rename the heading');
  // The base moves on too: its change is not the branch's.
  await git('switch', '--quiet', 'main');
  writeFileSync(join(root, 'other.md'), 'other\n');
  await git('add', 'other.md');
  await git('commit', '--quiet', '-m', 'Elsewhere');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('readChanges', () => {
  it("reads the branch's own commits and its diff from the merge base", async () => {
    const changes = await readChanges(root, 'refs/heads/main', 'refs/heads/job');
    expect(changes.commits.map((commit) => commit.subject)).toEqual(['Rename the heading']);
    expect(changes.diff).toContain('-# Intro\n+# Introduction');
    expect(changes.diff).not.toContain('other.md');
    expect(changes.truncated).toBe(false);
  });
});
