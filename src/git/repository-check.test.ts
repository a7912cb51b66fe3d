import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLocalRepository, RepositoryCheckError } from './repository-check.js';

let dir: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, stdio: 'pipe' });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-repo-check-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function refusal(repository: string, base: string) {
  try {
    await checkLocalRepository(repository, base);
  } catch (error) {
    if (error instanceof RepositoryCheckError) return { field: error.field, message: error.message };
    throw error;
  }
  return null;
}

describe('checkLocalRepository', () => {
  it('refuses a folder that is not a git repository', async () => {
    const plain = path.join(dir, 'plain');
    fs.mkdirSync(plain);
    expect(await refusal(plain, 'main')).toEqual({
      field: 'repository',
      message: `${plain} is not a git repository: run git init there (and make a first commit), or choose another folder.`,
    });
  });

  it('refuses a repository without commits, working copy or bare', async () => {
    const empty = path.join(dir, 'empty');
    const bare = path.join(dir, 'bare.git');
    git(dir, 'init', '-q', '-b', 'main', empty);
    git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
    for (const repository of [empty, bare])
      expect(await refusal(repository, 'main')).toEqual({
        field: 'repository',
        message: `${repository} has no commits yet: make a first commit (git commit) and try again.`,
      });
  });

  it('refuses a base branch the repository lacks, naming the branches it has', async () => {
    const docs = path.join(dir, 'docs');
    git(dir, 'init', '-q', '-b', 'master', docs);
    git(docs, 'commit', '-q', '--allow-empty', '-m', 'init');
    git(docs, 'branch', 'draft');
    expect(await refusal(docs, 'main')).toEqual({
      field: 'baseBranch',
      message: `${docs} has no branch "main" (its branches: draft, master): choose one of them as the base branch, or create main there.`,
    });
    expect(await refusal(docs, '--upload-pack=touch x')).toMatchObject({ field: 'baseBranch' });
    expect(await refusal(docs, 'a..b')).toEqual({
      field: 'baseBranch',
      message: '"a..b" is not a valid branch name.',
    });
    expect(await refusal(docs, 'master')).toBeNull();
    expect(await refusal(docs, 'draft')).toBeNull();
  });
});
