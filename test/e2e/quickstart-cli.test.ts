import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../support/e2e.js';
import { runCli } from '../support/processes.js';
import { makeRepo, tempDir } from '../support/worker.js';

// `agentjobs quickstart` through the built CLI, with a data directory of its own and no server.
describe('agentjobs quickstart', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('quickstart');
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), HOME: dir, PORT: '9' };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes a sample repository, a project and a key, and run again reuses them', async () => {
    const first = await runCli(['quickstart', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout);
    const repository = path.join(dir, 'data', 'sample-docs');
    expect(made).toMatchObject({
      repository: { path: repository, state: 'made' },
      project: { state: 'made', host: 'local', baseBranch: 'main', repository },
      serverRunning: false,
    });
    expect(made.key).toMatch(/^ajs_[A-Za-z0-9]{38,}$/);
    expect(made.createJob).toContain(`/v2/agent/${made.project.id}/job`);
    expect(made.createJob).toContain(`Authorization: Bearer ${made.key}`);
    expect(made.watchJob).toContain('Authorization: Bearer');
    expect(made.dashboard).toMatch(new RegExp(`/ui/projects/${made.project.id}$`));
    // One commit on main, three pages, nothing uncommitted.
    expect(git(repository, 'rev-list', '--count', 'main')).toBe('1');
    expect(git(repository, 'ls-tree', '-r', '--name-only', 'main').split('\n').sort()).toEqual([
      'README.md',
      'docs/getting-started.md',
      'docs/install.md',
    ]);
    expect(git(repository, 'status', '--porcelain')).toBe('');

    const second = await runCli(['quickstart'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`Repository: ${repository} (exists, left as it was)`);
    expect(second.stdout).toContain(`Project:    ${made.project.id} (exists: Sample docs)`);
    const key = second.stdout.match(/Key:\s+(ajs_\w+)/)?.[1];
    expect(key).toBeDefined();
    expect(key).not.toBe(made.key);
    expect(second.stdout).toContain('No server answers at');
    expect(git(repository, 'rev-list', '--count', 'main')).toBe('1');
  });

  it('--demo sets the project to the demo model, and a run without it sets it back', async () => {
    const noModel = {
      ...env,
      AGENTJOBS_DATA_DIR: path.join(dir, 'demo-data'),
      AGENTJOBS_MODEL: '',
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      OPENAI_COMPATIBLE_BASE_URL: '',
    };
    const demo = await runCli(['quickstart', '--demo', '--json'], noModel);
    expect(demo.code, demo.stderr).toBe(0);
    const made = JSON.parse(demo.stdout);
    expect(made.project).toMatchObject({ state: 'made', defaultModel: 'demo' });
    expect(made.modelNote).toMatch(/^Model: +demo, the built-in demo model/);

    // Without --demo and with no key anywhere: the project goes back to the server's model, and
    // the command says how to get one (no server answers, so it judges by this environment).
    const plain = await runCli(['quickstart'], noModel);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('No model key is set in this environment; before `npm start`, either');
    expect(plain.stdout).toContain('npx agentjobs quickstart --demo');
    const again = JSON.parse((await runCli(['quickstart', '--json'], noModel)).stdout);
    expect(again.project).toMatchObject({ id: made.project.id, state: 'exists', defaultModel: null });
  });

  it('refuses a folder that is not its repository', async () => {
    const other = path.join(dir, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'notes.txt'), 'mine\n');
    const refused = await runCli(['quickstart', '--dir', other, '--json'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatch(/exists and is not a git repository with a main branch/);
    expect(fs.readdirSync(other)).toEqual(['notes.txt']);
  });
});

// The project setting on the command line: `project create|update --close-pr-on-archive yes|no`.
describe('agentjobs project --close-pr-on-archive', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('close-pr-cli');
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), HOME: dir };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is set at creation, changed by update, and refuses other values', async () => {
    const repo = makeRepo(dir).repo;
    const created = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', repo, '--close-pr-on-archive', 'no', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project.closePrOnArchive).toBe(false);
    const updated = await runCli(['project', 'update', project.id, '--close-pr-on-archive', 'yes'], env);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/close PR on archive\s+yes/);
    const refused = await runCli(['project', 'update', project.id, '--close-pr-on-archive', 'maybe'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--close-pr-on-archive takes yes or no (got "maybe")');
  });
});
