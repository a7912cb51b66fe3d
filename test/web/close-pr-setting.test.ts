import { describe, expect, it } from 'vitest';
import { createProjectByForm, useSignedInDashboard } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

// The project setting "Close pull request on archive" in the dashboard's project settings.
describe('the close-on-archive setting in the dashboard', () => {
  const { t, browser } = useSignedInDashboard('sqlite');
  const repository = useRepository({ name: 'close-pr-setting' });

  it('is on by default, shown, and saved when turned off and on', async () => {
    const { projectId, form, settings } = await createProjectByForm(browser, repository.repo);
    expect((await t.store.projects.get(projectId))?.closePrOnArchive).toBe(true);

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
