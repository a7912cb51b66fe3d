import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';

describe.each(testDialects())('the Webhooks tab on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect, { AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' });

  const tab = () => `/ui/projects/${t.project.id}/webhooks`;

  it('adds an endpoint and shows its secret once', async () => {
    expect((await browser.get(tab())).body).toContain('No endpoints yet');
    const refused = await browser.post(tab(), { url: 'http://169.254.169.254/', description: '<b>x</b>' });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('metadata address');
    expect(refused.body).toContain('&lt;b&gt;x&lt;/b&gt;');
    // The same sentence as the API and the CLI, for a form that carries the metadata address.
    const nat64 = await browser.post(tab(), { url: 'http://[64:ff9b::a9fe:a9fe]/' });
    expect(nat64.status).toBe(422);
    expect(nat64.body).toContain(
      'The URL is not allowed: 64:ff9b::a9fe:a9fe is a NAT64 address for 169.254.169.254, a metadata address.',
    );

    const created = await browser.post(tab(), {
      url: 'http://127.0.0.1:9/hook',
      events: ['job.completed', 'job.failed'],
      description: 'Chat bot',
    });
    expect(created.status).toBe(303);
    const shown = await browser.get(created.location ?? '');
    const secret = /id="new-secret">(whsec_[^<]+)</.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    expect(shown.body).toContain('job.completed, job.failed');
    // Once: the next visit does not show it again.
    expect((await browser.get(tab())).body).not.toContain(secret ?? 'never');
    const [endpoint] = await t.store.webhooks.list(t.project.id);
    expect(endpoint).toMatchObject({ url: 'http://127.0.0.1:9/hook', description: 'Chat bot' });
  });

  it('disables, enables, rotates, shows deliveries with attempts, redelivers and deletes', async () => {
    const [endpoint] = await t.store.webhooks.list(t.project.id);
    const base = `${tab()}/${endpoint?.id}`;
    await browser.get(tab());
    expect((await browser.post(`${base}/disable`)).location).toContain('notice=disabled');
    expect((await t.store.webhooks.get(t.project.id, endpoint?.id ?? ''))?.enabled).toBe(false);
    await browser.get(tab());
    expect((await browser.post(`${base}/enable`)).status).toBe(303);
    expect((await t.store.webhooks.get(t.project.id, endpoint?.id ?? ''))?.enabled).toBe(true);

    await browser.get(tab());
    const rotated = await browser.post(`${base}/rotate`);
    const page = await browser.get(rotated.location ?? '');
    expect(page.body).toMatch(/id="new-secret">whsec_/);

    const job = await t.store.jobs.create({
      projectId: t.project.id,
      prompt: 'x',
      model: 'openai:gpt-5',
      baseRef: 'main',
      repository: '/r',
      draft: false,
    });
    await t.store.jobs.archive(t.project.id, job.id); // job.archived is not subscribed: no delivery
    const [pending] = (await t.store.webhooks.listDeliveries(endpoint?.id ?? '', { limit: 5 })).deliveries;
    expect(pending).toBeUndefined();
    await t.store.webhooks.update(t.project.id, endpoint?.id ?? '', { events: null });
    await t.store.jobs.create({
      projectId: t.project.id,
      prompt: 'y',
      model: 'openai:gpt-5',
      baseRef: 'main',
      repository: '/r',
      draft: false,
    });
    const deliveries = await browser.get(base);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toContain('job.created');
    expect(deliveries.body).toContain('not tried yet');
    const [delivery] = (await t.store.webhooks.listDeliveries(endpoint?.id ?? '', { limit: 5 })).deliveries;
    const redelivered = await browser.post(`${base}/deliveries/${delivery?.id}/redeliver`);
    expect(redelivered.location).toContain('notice=redelivered');

    await browser.get(tab());
    expect((await browser.post(`${base}/delete`)).location).toContain('notice=deleted');
    expect(await t.store.webhooks.list(t.project.id)).toEqual([]);
  });

  it('refuses a form without its CSRF token', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: tab(),
      headers: { cookie: browser.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'url=http%3A%2F%2F127.0.0.1%3A9%2F',
    });
    expect(response.statusCode).toBe(403);
  });

  it("shows the Webhooks tab, and 404 for another project's endpoint", async () => {
    const settings = await browser.get(`/ui/projects/${t.project.id}/settings`);
    expect(settings.body).toContain(`href="/ui/projects/${t.project.id}/webhooks"`);
    const other = await t.store.projects.create({ name: 'Other', repository: '/srv/other' });
    const { endpoint } = await t.store.webhooks.create(
      { projectId: other.id, url: 'http://127.0.0.1:9/', events: null, description: '' },
      { seal: (text) => text, open: (text) => text },
    );
    expect((await browser.get(`${tab()}/${endpoint.id}`)).status).toBe(404);
    await browser.get(tab());
    expect((await browser.post(`${tab()}/${endpoint.id}/delete`)).status).toBe(404);
    expect(await t.store.webhooks.list(other.id)).toHaveLength(1);
  });
});
