import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { createProjectByForm, useSignedInDashboard } from '../support/web-session.js';
import { useRepository } from '../support/worker.js';

// The Slack section of the dashboard's project settings (docs/slack.md): channels and users added
// and removed, what is no Slack id refused, a channel another project has refused.
describe.each(testDialects())('the Slack section of the project settings on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  const repository = useRepository({ name: 'slack-setting' });

  it('maps channels and lists users, and refuses what is no Slack id or is taken', async () => {
    const { projectId, settings } = await createProjectByForm(browser, repository.repo);
    const other = await t.store.projects.create({ name: 'Other', repository: repository.repo });
    await t.store.slack.addChannel(other.id, 'CTAKEN001');
    expect((await browser.get(settings)).body).toContain('No channel yet: mentions ask nothing.');

    const slack = `/ui/projects/${projectId}/slack`;
    expect((await browser.post(slack, { channel: 'CDOCS0001' })).status).toBe(303);
    expect((await browser.post(slack, { user: 'UALICE001' })).status).toBe(303);
    expect(await t.store.slack.mapping(projectId)).toEqual({ channels: ['CDOCS0001'], users: ['UALICE001'] });
    const page = (await browser.get(settings)).body;
    expect(page).toContain('<code>CDOCS0001</code>');
    expect(page).toContain('<code>UALICE001</code>');

    const bad = await browser.post(slack, { channel: '#docs' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('is no Slack channel id');
    const taken = await browser.post(slack, { channel: 'CTAKEN001' });
    expect(taken.status).toBe(400);
    expect(taken.body).toContain('asks another project already');
    expect(await t.store.slack.channelProject('CTAKEN001')).toBe(other.id);

    expect((await browser.post(`${slack}/remove`, { channel: 'CDOCS0001' })).status).toBe(303);
    expect((await browser.post(`${slack}/remove`, { user: 'UALICE001' })).status).toBe(303);
    expect(await t.store.slack.mapping(projectId)).toEqual({ channels: [], users: [] });
  });
});
