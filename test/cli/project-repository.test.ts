/**
 * `agentjobs project create|update` (the built CLI) refuses a repository a job could not use, in
 * words a person acts on, and stores nothing when it does.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';

let dir: string;
let env: Record<string, string>;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, stdio: 'pipe' });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-project-repo-'));
  env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '' };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const projects = async () => JSON.parse((await runCli(['project', 'list', '--json'], env)).stdout).projects;

describe('project create and update check the repository', () => {
  it('refuses a repository without commits, then one without the base branch', async () => {
    const docs = path.join(dir, 'docs');
    git(dir, 'init', '-q', '-b', 'main', docs);
    const empty = await runCli(['project', 'create', '--name', 'Docs', '--repo', docs], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(
      `${docs} has no commits yet: make a first commit (git commit) and try again.`,
    );

    git(docs, 'commit', '-q', '--allow-empty', '-m', 'init');
    const noBranch = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', docs, '--base', 'live'],
      env,
    );
    expect(noBranch.code).toBe(1);
    expect(noBranch.stderr).toContain(`${docs} has no branch "live" (its branches: main)`);
    expect(await projects()).toEqual([]);

    const created = await runCli(['project', 'create', '--name', 'Docs', '--repo', docs, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout) as { id: string; baseBranch: string };
    expect(project.baseBranch).toBe('main');

    const update = await runCli(['project', 'update', project.id, '--base', 'live'], env);
    expect(update.code).toBe(1);
    expect(update.stderr).toContain('has no branch "live"');
    expect((await projects())[0]).toMatchObject({ id: project.id, baseBranch: 'main' });

    git(docs, 'branch', 'live');
    const moved = await runCli(['project', 'update', project.id, '--base', 'live', '--json'], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ baseBranch: 'live' });
  });

  it('refuses a folder that is not a git repository', async () => {
    const plain = path.join(dir, 'plain');
    fs.mkdirSync(plain);
    const result = await runCli(['project', 'create', '--name', 'Plain', '--repo', plain], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${plain} is not a git repository`);
  });
});
