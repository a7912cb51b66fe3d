import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { bareRepo } from '../support/e2e.js';
import { useSignedInDashboard } from '../support/web-session.js';

// Issue 37: the dashboard's Check access prints what `agentjobs project check` does, the sandbox's
// and the setup lockfile's lines among them, and its result page's address (the form's POST) does not answer 404 on reload.
describe.each(testDialects())('Check access in the dashboard on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  const check = () => `/ui/projects/${t.project.id}/check`;
  const folders: string[] = [];
  afterAll(() => {
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the sandbox line when the project runs a command in it, as the CLI does', async () => {
    await browser.get(`/ui/projects/${t.project.id}/settings`); // the form's CSRF token
    const without = await browser.post(check());
    expect(without.status).toBe(200);
    expect(without.body).toContain('Access check');
    expect(without.body).not.toContain('<strong>sandbox</strong>');

    await t.store.projects.update(t.project.id, { checkCommand: 'vale .' });
    const withCommand = await browser.post(check());
    expect(withCommand.status).toBe(200);
    expect(withCommand.body).toMatch(/<strong>sandbox<\/strong>: The check command (can|cannot) run/);
  });

  it('shows the setup command’s lockfile line, as the CLI prints it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-check-lockfile-'));
    folders.push(dir);
    const bare = bareRepo(dir, 'docs', { 'package.json': '{}\n' });
    await t.store.projects.update(t.project.id, { repository: bare, setupCommand: 'npm ci' });
    await browser.get(`/ui/projects/${t.project.id}/settings`);
    const checked = await browser.post(check());
    expect(checked.status).toBe(200);
    expect(checked.body).toMatch(
      /missing<\/span> <strong>setup lockfile<\/strong>: The setup command runs `npm ci`, which installs only from package-lock.json or npm-shrinkwrap.json/,
    );
  });

  it('sends a reload of the result page (a GET) back to the settings, at Check access', async () => {
    const reloaded = await browser.get(check());
    expect(reloaded.status).toBe(303);
    expect(reloaded.location).toBe(`/ui/projects/${t.project.id}/settings#check-access`);
    const settings = await browser.get(`/ui/projects/${t.project.id}/settings`);
    expect(settings.body).toContain('<section id="check-access"><h2>Check access</h2>');
    // An unknown project is still a 404.
    expect((await browser.get('/ui/projects/nope/check')).status).toBe(404);
  });
});
