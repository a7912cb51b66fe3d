import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { runCli } from '../support/processes.js';
import { DashboardClient } from '../support/web-session.js';
import { makeRepo, tempDir } from '../support/worker.js';

const PASSWORD = 'quote context password';

// Whether a pull request quotes what an automation rendered from a context repository (issue 33,
// item 7): off by default, set on the project's settings page and with `project update --quote-context`.
describe.each(testDialects())('the quote-context setting in the dashboard on %s', (dialect) => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    await ensureAdminPassword(t.store.admin, PASSWORD);
    dir = tempDir('quote-context-setting');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is off by default, shown, and saved when changed', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const repository = makeRepo(dir).repo;
    const form = { name: 'Docs', host: 'local', repository, publish: 'pull_request' };
    await browser.get('/ui/projects/new');
    const created = await browser.post('/ui/projects', form);
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    expect((await t.store.projects.get(projectId))?.quoteContext).toBe(false);

    const settings = `/ui/projects/${projectId}/settings`;
    expect((await browser.get(settings)).body).toMatch(
      /<select id="f-quoteContext" name="quoteContext"[^>]*><option value="off" selected>off<\/option><option value="on">on<\/option>/,
    );
    expect((await browser.post(settings, { ...form, quoteContext: 'on' })).status).toBe(303);
    expect((await t.store.projects.get(projectId))?.quoteContext).toBe(true);
    expect((await browser.get(settings)).body).toContain('<option value="on" selected>on</option>');
    expect((await browser.post(settings, { ...form, quoteContext: 'sometimes' })).status).toBe(400);
    expect((await t.store.projects.get(projectId))?.quoteContext).toBe(true);
  });
});

describe('agentjobs project --quote-context', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('quote-context-cli');
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), HOME: dir };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is no by default, set by update, shown by get, and takes only yes or no', async () => {
    const repo = makeRepo(dir).repo;
    const created = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project.quoteContext).toBe(false);
    const updated = await runCli(['project', 'update', project.id, '--quote-context', 'yes'], env);
    expect(updated.code, updated.stderr).toBe(0);
    expect((await runCli(['project', 'get', project.id], env)).stdout).toMatch(/quote context in PRs\s+yes/);
    const refused = await runCli(['project', 'update', project.id, '--quote-context', 'maybe'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--quote-context takes yes or no (got "maybe")');
    expect(
      JSON.parse((await runCli(['project', 'get', project.id, '--json'], env)).stdout).quoteContext,
    ).toBe(true);
  });
});
