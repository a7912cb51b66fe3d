/**
 * Linear's issues start automations (docs/automations.md, "Linear"): the project's Linear secret
 * is set through the API, a signed delivery of an issue created with the automation's label in its
 * team starts a job with the issue's title in its prompt, and a delivery sent again, or a label
 * added later to the same issue, starts nothing more. An unsigned delivery, a wrong signature and a
 * stale `webhookTimestamp` are 401 and record nothing; so is any delivery before a secret is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostEventDispatcher, type HostEventDispatcher } from '../../src/background/host-events.js';
import { loadConfig } from '../../src/config/config.js';
import type { Automation } from '../../src/domain/automation.js';
import { createLogger } from '../../src/log.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { linearDelivery, linearIssuePayload } from '../support/linear-hooks.js';

const SECRET = `lin_wh_${'s3cr3t'.repeat(6)}`;

describe.each(testDialects())('Linear issues start automations, on %s', (dialect) => {
  let t: TestApp;
  let dispatcher: HostEventDispatcher;
  let automation: Automation;

  const hookUrl = () => `/v2/hooks/${t.project.id}/linear`;
  const deliver = (delivery: ReturnType<typeof linearDelivery>) =>
    t.app.inject({ method: 'POST', url: hookUrl(), headers: delivery.headers, payload: delivery.body });
  const jobs = async () => (await t.store.jobs.list(t.project.id, { limit: 50 })).jobs;
  const settled = () =>
    expect
      .poll(
        async () =>
          (await t.store.hostEvents.list(t.project.id)).every((event) => event.processedAt !== null),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);

  beforeAll(async () => {
    t = await startTestApp(dialect);
    const config = loadConfig({
      AGENTJOBS_DATA_DIR: '/nonexistent-agentjobs',
      AGENTJOBS_SECRET_KEY: 'a'.repeat(64),
    });
    dispatcher = createHostEventDispatcher({ store: t.store, logger: createLogger('silent'), config });
    await dispatcher.start();
    const created = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/automations`,
      headers: { authorization: `Bearer ${t.key}` },
      payload: {
        name: 'Docs issues from Linear',
        trigger: { type: 'issue', source: 'linear', team: 'ENG', labels: ['docs'] },
        prompt: 'Linear asks: {{issue.title}}\n{{issue.body}}\n{{issue.url}}',
        group: false,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    automation = created.json();
    expect(automation.trigger).toEqual({
      type: 'issue',
      source: 'linear',
      repository: null,
      team: 'ENG',
      labels: ['docs'],
    });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await t?.close();
  });

  it('refuses every delivery while the project has no Linear secret', async () => {
    const response = await deliver(linearDelivery(linearIssuePayload({ labels: ['docs'] }), SECRET));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'unauthorized' });
    expect(response.json().error).toContain('linear-secret');
    expect(await t.store.hostEvents.count(t.project.id)).toBe(0);
  });

  it('sets the secret through the API, never showing it back', async () => {
    const set = await t.app.inject({
      method: 'PUT',
      url: `/v2/agent/${t.project.id}/linear/secret`,
      headers: { authorization: `Bearer ${t.key}` },
      payload: { secret: SECRET },
    });
    expect(set.statusCode, set.body).toBe(204);
    expect(set.body).toBe('');
    expect(await t.store.linearSecrets.has(t.project.id)).toBe(true);
    expect(t.logs.join('\n')).not.toContain(SECRET);
  });

  it('refuses unsigned, wrongly signed and stale deliveries with 401, recording nothing', async () => {
    const payload = linearIssuePayload({ labels: ['docs'] });
    const unsigned = await deliver(linearDelivery(payload, SECRET, { signature: 'missing' }));
    const wrong = await deliver(
      linearDelivery(payload, SECRET, { signature: { secret: 'not-the-secret-at-all' } }),
    );
    const stale = await deliver(
      linearDelivery(linearIssuePayload({ labels: ['docs'], timestamp: Date.now() - 5 * 60_000 }), SECRET),
    );
    for (const response of [unsigned, wrong, stale]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'unauthorized' });
    }
    expect(unsigned.json().error).toContain('Linear-Signature');
    expect(stale.json().error).toContain('stale');
    expect(await t.store.hostEvents.count(t.project.id)).toBe(0);
    expect(await jobs()).toEqual([]);
  });

  it('starts a job for an issue created with the label, once', async () => {
    const delivery = linearDelivery(
      linearIssuePayload({ title: 'Explain --verbose', labels: ['Docs'] }),
      SECRET,
    );
    const response = await deliver(delivery);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toMatchObject({ outcome: 'recorded' });
    await expect.poll(async () => (await jobs()).length, { timeout: 20_000 }).toBe(1);
    const [job] = await jobs();
    expect(job?.trigger).toEqual({
      type: 'issue',
      automationId: automation.id,
      source: 'https://linear.app/acme/issue/ENG-123/document-the-flag',
    });
    expect(job?.prompt).toContain('Explain --verbose');

    const again = await deliver(
      linearDelivery(JSON.parse(delivery.body), SECRET, { deliveryId: delivery.deliveryId }),
    );
    expect(again.json()).toMatchObject({ outcome: 'duplicate' });
    // A label added later to the same issue is the same issue: no second run.
    await deliver(
      linearDelivery(linearIssuePayload({ action: 'update', labels: ['Docs'], added: 'urgent' }), SECRET),
    );
    await deliver(
      linearDelivery(linearIssuePayload({ action: 'update', labels: [], added: 'docs' }), SECRET),
    );
    await settled();
    expect(await jobs()).toHaveLength(1);
  });

  it('starts nothing for another team, or an issue without the label', async () => {
    await deliver(linearDelivery(linearIssuePayload({ team: 'OPS', number: 9, labels: ['docs'] }), SECRET));
    await deliver(linearDelivery(linearIssuePayload({ number: 10, labels: ['bug'] }), SECRET));
    await settled();
    expect(await jobs()).toHaveLength(1);
    // A label added to an issue of the team: that issue's run.
    await deliver(
      linearDelivery(
        linearIssuePayload({ action: 'update', number: 10, labels: ['bug'], added: 'docs' }),
        SECRET,
      ),
    );
    await expect.poll(async () => (await jobs()).length, { timeout: 20_000 }).toBe(2);
  });
});
