import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword } from '../../src/domain/password.js';
import type { Project } from '../../src/domain/project.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { DashboardClient } from '../support/web-session.js';

const PASSWORD = 'hook secret page password';

describe.each(testDialects())('the code-host webhooks section of the settings, on %s', (dialect) => {
  let t: TestApp;
  let browser: DashboardClient;
  let gitlab: Project;
  beforeAll(async () => {
    t = await startTestApp(dialect, { AGENTJOBS_PUBLIC_URL: 'https://agentjobs.example.com' });
    await ensureAdminPassword(t.store.admin, PASSWORD);
    browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    gitlab = await t.store.projects.create({
      name: 'Docs on GitLab',
      repository: 'https://gitlab.example.com/docs/handbook.git',
      host: 'gitlab',
    });
  });
  afterAll(() => t.close());

  const settings = () => `/ui/projects/${gitlab.id}/settings`;
  const secretOn = (body: string) => /id="new-hook-secret">(hooksec_[^<]+)</.exec(body)?.[1];

  it('shows a local project no hook steps: no code host sends it any (issue 37)', async () => {
    const page = await browser.get(`/ui/projects/${t.project.id}/settings`);
    expect(t.project.host).toBe('local');
    expect(page.body).toContain('Code-host webhooks');
    expect(page.body).toContain('Not needed: this project');
    // No code host's hook URL; Linear's (its own section) is not a code host's.
    expect(page.body).not.toMatch(/\/v2\/hooks\/[^/"]+\/(github|gitlab|gitea)/);
    expect(page.body).not.toContain('Make a hook secret');
  });

  it('shows its host’s URL and steps only, makes the secret and shows it once, rotates it', async () => {
    const before = await browser.get(settings());
    expect(before.body).toContain('Code-host webhooks');
    expect(before.body).toContain('No hook secret yet');
    expect(before.body).toContain(`https://agentjobs.example.com/v2/hooks/${gitlab.id}/gitlab`);
    expect(before.body).toContain('Merge request events');
    for (const host of ['github', 'gitea'])
      expect(before.body).not.toContain(`/v2/hooks/${gitlab.id}/${host}`);
    expect(before.body).not.toContain('Pull request review comments');

    const made = await browser.post(`/ui/projects/${gitlab.id}/hook-secret`);
    expect(made.status).toBe(200);
    const secret = secretOn(made.body);
    expect(secret).toBeDefined();
    expect(await t.store.projects.hookSecret(gitlab.id, t.secrets())).toBe(secret);

    const later = await browser.get(settings());
    expect(later.body).not.toContain(secret ?? 'never');
    expect(later.body).toContain('A hook secret is set');
    expect(later.body).toContain('Rotate the hook secret');

    const rotated = await browser.post(`/ui/projects/${gitlab.id}/hook-secret`);
    const fresh = secretOn(rotated.body);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(secret);
    expect(rotated.body).toContain('the old one no longer works');
    expect(await t.store.projects.hookSecret(gitlab.id, t.secrets())).toBe(fresh);
    expect(t.logs.join('\n')).not.toContain(fresh ?? 'never');
    expect(t.logs.join('\n')).not.toContain(secret ?? 'never');
  });

  it('refuses a form without its CSRF token', async () => {
    const anonymous = new DashboardClient(t.app);
    const refused = await anonymous.post(`/ui/projects/${gitlab.id}/hook-secret`);
    expect(refused.status).not.toBe(200);
    expect(secretOn(refused.body)).toBeUndefined();
  });
});
