import { describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { createProjectByForm, useSignedInDashboard } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

const sandbox = await sandboxStatus({ unlimited: false });

// The project's setup command and agent commands on the dashboard's project settings page.
describe.skipIf(!sandbox.available)('the environment settings in the dashboard', () => {
  const { t, browser } = useSignedInDashboard('sqlite');
  const repository = useRepository({ name: 'environment-setting' });

  it('are off by default, shown, saved and removed', async () => {
    const { projectId, form, settings } = await createProjectByForm(browser, repository.repo);
    expect(await t.store.projects.get(projectId)).toMatchObject({ setupCommand: null, agentCommands: false });

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
