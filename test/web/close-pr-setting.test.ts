import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DashboardClient } from '../support/web-session.js';
import { makeRepo, tempDir } from '../support/worker.js';

const PASSWORD = 'close pr setting password';

// The project setting "Close pull request on archive" in the dashboard's project settings.
describe('the close-on-archive setting in the dashboard', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await ensureAdminPassword(t.store.admin, PASSWORD);
    dir = tempDir('close-pr-setting');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is on by default, shown, and saved when turned off and on', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const repository = makeRepo(dir).repo;
    const form = { name: 'Docs', host: 'local', repository, publish: 'pull_request' };
    // The form's page first: it sets the CSRF token the post carries.
    await browser.get('/ui/projects/new');
    const created = await browser.post('/ui/projects', form);
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    expect((await t.store.projects.get(projectId))?.closePrOnArchive).toBe(true);

    const settings = `/ui/projects/${projectId}/settings`;
    expect((await browser.get(settings)).body).toMatch(
      /<select id="f-closePrOnArchive" name="closePrOnArchive"[^>]*><option value="on" selected>/,
    );
    expect((await browser.post(settings, { ...form, closePrOnArchive: 'off' })).status).toBe(303);
    expect((await t.store.projects.get(projectId))?.closePrOnArchive).toBe(false);
    expect((await browser.get(settings)).body).toContain('<option value="off" selected>off</option>');
    expect((await browser.post(settings, { ...form, closePrOnArchive: 'maybe' })).status).toBe(400);
    expect((await t.store.projects.get(projectId))?.closePrOnArchive).toBe(false);
    expect((await browser.post(settings, { ...form, closePrOnArchive: 'on' })).status).toBe(303);
    expect((await t.store.projects.get(projectId))?.closePrOnArchive).toBe(true);
  });
});
