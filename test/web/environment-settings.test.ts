import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DashboardClient } from '../support/web-session.js';
import { makeRepo, tempDir } from '../support/worker.js';

const PASSWORD = 'environment setting password';
const sandbox = await sandboxStatus({ unlimited: false });

// The project's setup command and agent commands on the dashboard's project settings page.
describe.skipIf(!sandbox.available)('the environment settings in the dashboard', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await ensureAdminPassword(t.store.admin, PASSWORD);
    dir = tempDir('environment-setting');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are off by default, shown, saved and removed', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const repository = makeRepo(dir).repo;
    const form = { name: 'Docs', host: 'local', repository, publish: 'pull_request' };
    await browser.get('/ui/projects/new');
    const created = await browser.post('/ui/projects', form);
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    expect(await t.store.projects.get(projectId)).toMatchObject({ setupCommand: null, agentCommands: false });

    const settings = `/ui/projects/${projectId}/settings`;
    const page = (await browser.get(settings)).body;
    expect(page).toContain('name="setupCommand"');
    expect(page).toMatch(
      /<select id="f-agentCommands" name="agentCommands"[^>]*><option value="off" selected>/,
    );
    const on = { ...form, setupCommand: 'npm ci', agentCommands: 'on' };
    expect((await browser.post(settings, on)).status).toBe(303);
    expect(await t.store.projects.get(projectId)).toMatchObject({
      setupCommand: 'npm ci',
      agentCommands: true,
    });
    const shown = (await browser.get(settings)).body;
    expect(shown).toContain('value="npm ci"');
    expect(shown).toContain('<option value="on" selected>on</option>');
    expect((await browser.post(settings, { ...on, agentCommands: 'always' })).status).toBe(400);
    expect((await browser.post(settings, { ...on, setupCommand: 'npm ci\nrm -rf /' })).status).toBe(400);
    expect((await browser.post(settings, { ...form, setupCommand: '', agentCommands: 'off' })).status).toBe(
      303,
    );
    expect(await t.store.projects.get(projectId)).toMatchObject({ setupCommand: null, agentCommands: false });
  });
});
