import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';

// Instance keys in the dashboard: their own page, and beside each project's keys.
describe.each(testDialects())('instance keys in the dashboard on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);

  it('creates an instance key, shows it once, and it works on every project', async () => {
    const page = await browser.get('/ui/keys');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Create an instance key');
    expect(page.body).toContain('href="/ui/keys"'); // in the main navigation
    const made = await browser.post('/ui/keys', {
      name: 'org bot',
      scopes: ['read'],
      expires: 'never',
      ips: '',
    });
    expect(made.status).toBe(303);
    expect(made.location).toBe('/ui/keys');
    const shown = await browser.get(made.location ?? '');
    const key = /<code id="new-key">(ajs_[^<]+)<\/code>/.exec(shown.body)?.[1] ?? '';
    expect(key).toMatch(/^ajs_/);
    expect(shown.body).toContain('of any project');
    expect((await browser.get('/ui/keys')).body).not.toContain(key);
    const [record] = await t.store.apiKeys.list(null);
    expect(record).toMatchObject({ name: 'org bot', scopes: ['read'], projectId: null, expiresAt: null });
    expect(t.logs.join('\n')).not.toContain(key);

    const other = await t.store.projects.create({ name: 'Handbook', repository: '/srv/handbook.git' });
    for (const projectId of [t.project.id, other.id]) {
      const response = await t.app.inject({
        url: `/v2/agent/${projectId}/job`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode).toBe(200);
    }

    // Beside the project's own keys, without a revoke button of its own there.
    const projectPage = await browser.get(`/ui/projects/${other.id}/keys`);
    const section = projectPage.body.slice(projectPage.body.indexOf('id="instance-keys"'));
    expect(section).toContain('org bot');
    expect(section).not.toContain('/revoke');
    // The project's own list does not hold it.
    const own = projectPage.body.slice(0, projectPage.body.indexOf('id="instance-keys"'));
    expect(own).not.toContain('org bot');

    // A project's page cannot revoke it; its own page can.
    const wrongPlace = await browser.post(`/ui/projects/${other.id}/keys/${record?.id}/revoke`);
    expect(wrongPlace.status).toBe(404);
    const revoked = await browser.post(`/ui/keys/${record?.id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await browser.get(revoked.location ?? '')).body).toContain('badge revoked');
    const refused = await t.app.inject({
      url: `/v2/agent/${other.id}/job`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.statusCode).toBe(401);
  });

  it('refuses a bad form and keeps what was typed', async () => {
    await browser.get('/ui/keys');
    const response = await browser.post('/ui/keys', { name: '', scopes: 'read', expires: '30', ips: 'nope' });
    expect(response.status).toBe(400);
    expect(response.body).toContain('nope');
    expect(response.body).toContain('is required');
  });

  it('does not revoke a project key through the instance page', async () => {
    const [projectKey] = await t.store.apiKeys.list(t.project.id);
    const response = await browser.post(`/ui/keys/${projectKey?.id}/revoke`);
    expect(response.status).toBe(404);
    expect((await t.store.apiKeys.list(t.project.id))[0]?.revokedAt).toBeNull();
  });
});
