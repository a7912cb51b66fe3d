import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { DashboardClient } from '../support/web-session.js';
import { makeRepo, tempDir } from '../support/worker.js';

const PASSWORD = 'mention setting password';

// The project's mention in the dashboard's project settings (DESIGN section 3, the `comment` trigger).
describe.each(testDialects())('the mention setting in the dashboard on %s', (dialect) => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    await ensureAdminPassword(t.store.admin, PASSWORD);
    dir = tempDir('mention-setting');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is @agentjobs by default, shown, saved when changed, and refused when it is no mention', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const repository = makeRepo(dir).repo;
    const form = { name: 'Docs', host: 'local', repository, publish: 'pull_request' };
    await browser.get('/ui/projects/new');
    const created = await browser.post('/ui/projects', form);
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    expect((await t.store.projects.get(projectId))?.mention).toBe('@agentjobs');

    const settings = `/ui/projects/${projectId}/settings`;
    expect((await browser.get(settings)).body).toMatch(
      /<input type="text" id="f-mention" name="mention" value="@agentjobs"/,
    );
    expect((await browser.post(settings, { ...form, mention: '@docs-bot' })).status).toBe(303);
    expect((await t.store.projects.get(projectId))?.mention).toBe('@docs-bot');
    expect((await browser.get(settings)).body).toContain('value="@docs-bot"');

    const refused = await browser.post(settings, { ...form, mention: 'docs bot' });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('must be @ followed by 1 to 39 letters, digits, _ or -');
    expect((await t.store.projects.get(projectId))?.mention).toBe('@docs-bot');
    // Emptied, it goes back to the default.
    expect((await browser.post(settings, { ...form, mention: '' })).status).toBe(303);
    expect((await t.store.projects.get(projectId))?.mention).toBe('@agentjobs');
  });
});
