import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';

// Issue 37: the dashboard's Check access prints what `agentjobs project check` does, the sandbox's
// line among them, and its result page's address (the form's POST) does not answer 404 on reload.
describe.each(testDialects())('Check access in the dashboard on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  const check = () => `/ui/projects/${t.project.id}/check`;

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
