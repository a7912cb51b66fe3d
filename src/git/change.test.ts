import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeBetween, commitsBetween, commitsPresent } from './change.js';
import { runGit } from './run.js';

const identity = {
  GIT_AUTHOR_NAME: 'Product',
  GIT_AUTHOR_EMAIL: 'product@example.com',
  GIT_COMMITTER_NAME: 'Product',
  GIT_COMMITTER_EMAIL: 'product@example.com',
};

let root: string;
let gitDir: string;
const ids: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-change-'));
  gitDir = join(root, '.git');
  const git = (...args: string[]) => runGit(args, { cwd: root, env: identity });
  await runGit(['init', '--quiet', '--initial-branch=main', root]);
  for (const [file, text, message] of [
    ['api.ts', 'export const a = 1;\n', 'First'],
    ['api.ts', 'export const a = 2;\n', 'Raise a'],
    ['cli.ts', 'export const b = 1;\n', 'Add the CLI'],
  ] as const) {
    writeFileSync(join(root, file), text);
    await git('add', file);
    await git('commit', '--quiet', '-m', message);
    ids.push((await git('rev-parse', 'HEAD')).stdout.toString().trim());
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('commitsPresent', () => {
  it('says which commits the repository has, in one ask', async () => {
    const absent = 'f'.repeat(40);
    const tree = (await runGit(['rev-parse', 'HEAD^{tree}'], { cwd: root })).stdout.toString().trim();
    const present = await commitsPresent(gitDir, [ids[0] as string, absent, ids[2] as string, tree]);
    expect([...present].sort()).toEqual([ids[0], ids[2]].sort());
  });

  it('never asks git about an id that is not hex', async () => {
    const present = await commitsPresent(gitDir, ['--output=/tmp/x', 'HEAD', `${ids[0]}\n${ids[1]}`]);
    expect(present.size).toBe(0);
  });
});

describe('changeBetween', () => {
  it('reads the commits, the diff and its files between two commits', async () => {
    const change = await changeBetween(gitDir, ids[0] as string, ids[2] as string);
    expect(change.commits.map((commit) => commit.message)).toEqual(['Add the CLI', 'Raise a']);
    expect(change.files.sort()).toEqual(['api.ts', 'cli.ts']);
    expect(change.diff).toContain('+export const a = 2;');
    expect(change.diff).toContain('+export const b = 1;');
  });

  it("stands for the change with the last commit's own when there is no from", async () => {
    const change = await changeBetween(gitDir, null, ids[2] as string);
    expect(change.commits.map((commit) => commit.id)).toEqual([ids[2]]);
    expect(change.files).toEqual(['cli.ts']);
    expect(change.diff).not.toContain('api.ts');
  });
});

describe('commitsBetween', () => {
  it('lists the commits after from, or the last alone when from is unknown', async () => {
    expect((await commitsBetween(gitDir, ids[1] as string, ids[2] as string)).map((c) => c.id)).toEqual([
      ids[2],
    ]);
    expect((await commitsBetween(gitDir, 'e'.repeat(40), ids[2] as string)).map((c) => c.id)).toEqual([
      ids[2],
    ]);
  });
});
