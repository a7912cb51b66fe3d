/**
 * The dashboard and the CLI (the built one) keep the same rules for projects and keys, because
 * both go through the same operations (`operations/projects.ts`, `operations/keys.ts`). Before, each front had
 * its own copy: the CLI took a key with no name or a 500-character one, a project name of any
 * length, a remote project's base branch git refuses, and quickstart's key never expired.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { runCli } from '../support/processes.js';
import { createProjectByForm, type DashboardClient, signedInDashboard } from '../support/web-session.js';
import { makeRepo, tempDir } from '../support/worker.js';

const decode = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'");
const DAY_MS = 86_400_000;

describe('the dashboard and the CLI keep one set of rules', () => {
  let t: TestApp;
  let browser: DashboardClient;
  let dir: string;
  let repo: string;
  let env: Record<string, string>;
  let dashboardProject: string;
  beforeAll(async () => {
    ({ t, browser } = await signedInDashboard('sqlite'));
    dir = tempDir('fronts-agree');
    repo = makeRepo(dir).repo;
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent', HOME: dir };
    dashboardProject = (await createProjectByForm(browser, repo)).projectId;
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[], extra: Record<string, string> = {}, cwd?: string) =>
    runCli(args, { ...env, ...extra }, undefined, cwd ? { cwd } : {});
  const cliProject = async () => {
    const made = await cli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json']);
    expect(made.code, made.stderr).toBe(0);
    return JSON.parse(made.stdout).id as string;
  };

  it('a key needs a name of 1 to 100 characters', async () => {
    const projectId = await cliProject();
    for (const [name, said] of [
      ['', 'is required'],
      ['k'.repeat(101), 'must be at most 100 characters'],
    ] as const) {
      await browser.get(`/ui/projects/${dashboardProject}/keys`);
      const page = await browser.post(`/ui/projects/${dashboardProject}/keys`, {
        name,
        scopes: 'read',
        expires: '30',
        ips: '',
      });
      expect(page.status).toBe(400);
      expect(page.body).toContain(said);
      const command = await cli(['key', 'create', '--project', projectId, '--name', name]);
      expect(command.code).toBe(1);
      expect(command.stderr).toContain(`--name ${said}.`);
    }
    expect(await t.store.apiKeys.list(dashboardProject)).toEqual([]);
    const listed = await cli(['key', 'list', '--project', projectId, '--json']);
    expect(JSON.parse(listed.stdout).keys).toEqual([]);
  });

  it('a project name is at most 100 characters', async () => {
    const name = 'n'.repeat(101);
    await browser.get('/ui/projects/new');
    const page = await browser.post('/ui/projects', {
      name,
      host: 'local',
      repository: repo,
      publish: 'pull_request',
    });
    expect(page.status).toBe(400);
    expect(page.body).toContain('must be at most 100 characters');
    const command = await cli(['project', 'create', '--name', name, '--repo', repo]);
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('--name must be at most 100 characters.');
  });

  it('a remote project’s base branch must be one git accepts', async () => {
    const token = { GITHUB_TOKEN: 'ghp_fronts_agree_token_0123456789' };
    const made = await cli(
      [
        'project',
        'create',
        '--name',
        'Remote',
        '--host',
        'github',
        '--repo',
        'https://github.com/acme/docs',
        '--json',
      ],
      token,
    );
    expect(made.code, made.stderr).toBe(0);
    const command = await cli(['project', 'update', JSON.parse(made.stdout).id, '--base', 'release..next']);
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('--base is not a valid branch name: must not contain "..".');

    await browser.get('/ui/projects/new');
    const form = {
      name: 'Remote',
      host: 'github',
      repository: 'https://github.com/acme/docs',
      publish: 'pull_request',
      token: token.GITHUB_TOKEN,
    };
    const page = await browser.post('/ui/projects', { ...form, baseBranch: 'release..next' });
    expect(page.status).toBe(400);
    expect(decode(page.body)).toContain('is not a valid branch name: must not contain ".."');
  });

  it('a relative repository path means the CLI user’s directory; the dashboard, which has none, refuses it', async () => {
    await browser.get('/ui/projects/new');
    const page = await browser.post('/ui/projects', {
      name: 'Relative',
      host: 'local',
      repository: 'upstream',
      publish: 'pull_request',
    });
    expect(page.status).toBe(400);
    expect(page.body).toContain('must be an absolute path on the server');
    const command = await cli(
      ['project', 'create', '--name', 'Relative', '--repo', 'upstream', '--json'],
      {},
      dir,
    );
    expect(command.code, command.stderr).toBe(0);
    expect(JSON.parse(command.stdout).repository).toBe(repo);
  });

  it('quickstart’s key expires after the default 90 days, like every other key', async () => {
    const before = Date.now();
    const started = await cli(['quickstart', '--json', '--dir', path.join(dir, 'sample')], { PORT: '9' });
    expect(started.code, started.stderr).toBe(0);
    const { project } = JSON.parse(started.stdout) as { project: { id: string } };
    const listed = await cli(['key', 'list', '--project', project.id, '--json']);
    const [key] = JSON.parse(listed.stdout).keys as { name: string; expiresAt: string | null }[];
    expect(key?.name).toBe('quickstart');
    expect(Date.parse(key?.expiresAt ?? '')).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
  });
});
