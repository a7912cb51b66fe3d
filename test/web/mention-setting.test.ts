import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { createProjectByForm, useSignedInDashboard } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

// The project's mention in the dashboard's project settings (docs/automations.md).
describe.each(testDialects())('the mention setting in the dashboard on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  const repository = useRepository({ name: 'mention-setting' });

  it('is @agentjobs by default, shown, saved when changed, and refused when it is no mention', async () => {
    const { projectId, form, settings } = await createProjectByForm(browser, repository.repo);
    expect((await t.store.projects.get(projectId))?.mention).toBe('@agentjobs');

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
