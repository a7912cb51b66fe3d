/**
 * The webhook endpoint operations (`operations/webhook-endpoints.ts`) on every database, called as the
 * API and the dashboard call them: what a refusal says and that it stores nothing, the URL and
 * description kept trimmed, the typed 404s, and the delivery log's pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointDeps,
} from '../../src/operations/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secrets.js';
import type { Resolve } from '../../src/webhooks/address.js';
import { makeTestJob, testDialects, useTestStore } from '../support/db.js';

const box = createSecretBox('webhook-endpoints-test-key-0123456789abcdef');
/** Names resolve here without the network: one to a public address, one to a private one. */
const resolve: Resolve = async (host) => {
  if (host === 'hooks.example.com') return [{ address: '93.184.216.34', family: 4 }];
  if (host === 'inside.example.com') return [{ address: '10.0.0.7', family: 4 }];
  throw new Error('no such name');
};

describe.each(testDialects())('webhook endpoint operations on %s', (dialect) => {
  const t = useTestStore(dialect);
  let project: Project;
  let deps: WebhookEndpointDeps;
  beforeAll(async () => {
    project = await t.store.projects.create({ name: 'Hooks', repository: '/srv/hooks' });
    deps = { store: t.store, config: { webhooks: { allowPrivate: false } }, secrets: () => box, resolve };
  });

  it('keeps the URL and the description trimmed, and no event types as all of them', async () => {
    const { endpoint, secret } = await createWebhookEndpoint(deps, project.id, {
      url: '  https://hooks.example.com/agentjobs \n',
      events: [],
      description: '  Chat bot  ',
    });
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example.com/agentjobs',
      description: 'Chat bot',
      events: null,
      enabled: true,
    });
    expect(await getWebhookEndpoint(deps, project.id, endpoint.id)).toEqual(endpoint);
  });

  it.each([
    ['a private address', 'http://10.1.2.3/hook', 'The URL is not allowed: 10.1.2.3 is'],
    ['a name that resolves to one', 'https://inside.example.com/hook', 'resolves to 10.0.0.7'],
    ['a name that does not resolve', 'https://nowhere.example.com/hook', 'does not resolve'],
    ['credentials', 'https://user:pw@hooks.example.com/', 'must not contain credentials'],
    ['over 2,048 characters', `https://hooks.example.com/${'a'.repeat(2048)}`, 'at most 2048 characters'],
  ])('refuses %s with webhook_url_not_allowed, storing nothing', async (_name, url, words) => {
    const before = await listWebhookEndpoints(deps, project.id);
    const refusal = createWebhookEndpoint(deps, project.id, { url });
    await expect(refusal).rejects.toMatchObject({
      code: 'webhook_url_not_allowed',
      details: [{ path: 'body.url' }],
    });
    await expect(refusal).rejects.toThrow(words);
    expect(await listWebhookEndpoints(deps, project.id)).toEqual(before);
  });

  it('refuses an empty URL and a long description with invalid_request naming the field', async () => {
    await expect(createWebhookEndpoint(deps, project.id, { url: '   ' })).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'body.url', message: 'is required' }],
    });
    const long = createWebhookEndpoint(deps, project.id, {
      url: 'https://hooks.example.com/',
      description: 'x'.repeat(501),
    });
    await expect(long).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'body.description', message: 'must be at most 500 characters' }],
    });
  });

  it('lets the setting through private addresses, and a change keeps the same rules', async () => {
    const allowing = { ...deps, config: { webhooks: { allowPrivate: true } } };
    const { endpoint } = await createWebhookEndpoint(allowing, project.id, {
      url: 'http://127.0.0.1:9/hook',
    });
    await expect(
      updateWebhookEndpoint(deps, project.id, endpoint.id, { url: 'http://127.0.0.1:9/other' }),
    ).rejects.toMatchObject({ code: 'webhook_url_not_allowed' });
    const changed = await updateWebhookEndpoint(deps, project.id, endpoint.id, {
      url: ' https://hooks.example.com/new ',
      description: ' Renamed ',
      events: ['job.failed'],
      enabled: false,
    });
    expect(changed).toMatchObject({
      url: 'https://hooks.example.com/new',
      description: 'Renamed',
      events: ['job.failed'],
      enabled: false,
    });
    expect((await updateWebhookEndpoint(deps, project.id, endpoint.id, { events: [] })).events).toBeNull();
  });

  it("answers webhook_not_found for another project's endpoint and project_not_found for no project", async () => {
    const other = await t.store.projects.create({ name: 'Other', repository: '/srv/other' });
    const { endpoint } = await createWebhookEndpoint(deps, other.id, { url: 'https://hooks.example.com/' });
    const notFound = { code: 'webhook_not_found' };
    await expect(getWebhookEndpoint(deps, project.id, endpoint.id)).rejects.toMatchObject(notFound);
    await expect(
      updateWebhookEndpoint(deps, project.id, endpoint.id, { enabled: false }),
    ).rejects.toMatchObject(notFound);
    await expect(rotateWebhookSecret(deps, project.id, endpoint.id)).rejects.toMatchObject(notFound);
    await expect(deleteWebhookEndpoint(deps, project.id, endpoint.id)).rejects.toMatchObject(notFound);
    await expect(listWebhookDeliveries(deps, project.id, endpoint.id, { limit: 5 })).rejects.toMatchObject(
      notFound,
    );
    expect(await getWebhookEndpoint(deps, other.id, endpoint.id)).toMatchObject({ enabled: true });
    await expect(listWebhookEndpoints(deps, 'prj_none')).rejects.toMatchObject({ code: 'project_not_found' });
    await expect(
      createWebhookEndpoint(deps, 'prj_none', { url: 'https://hooks.example.com/' }),
    ).rejects.toMatchObject({ code: 'project_not_found' });
  });

  it('rotates the secret, pages the delivery log by cursor, redelivers and deletes', async () => {
    const own = await t.store.projects.create({ name: 'Log', repository: '/srv/log' });
    const { endpoint, secret } = await createWebhookEndpoint(deps, own.id, {
      url: 'https://hooks.example.com/',
    });
    const rotated = await rotateWebhookSecret(deps, own.id, endpoint.id);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.endpoint.previousSecretExpiresAt).not.toBeNull();
    for (const prompt of ['one', 'two', 'three']) await makeTestJob(t.store, own, prompt);
    const first = await listWebhookDeliveries(deps, own.id, endpoint.id, { limit: 2 });
    expect(first.deliveries).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await listWebhookDeliveries(deps, own.id, endpoint.id, {
      limit: 2,
      cursor: first.nextCursor ?? '',
    });
    expect(second).toMatchObject({ nextCursor: null });
    expect(second.deliveries).toHaveLength(1);
    await expect(
      listWebhookDeliveries(deps, own.id, endpoint.id, { limit: 2, cursor: 'not a cursor' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });

    const delivery = first.deliveries[0];
    expect((await redeliverWebhookDelivery(deps, own.id, endpoint.id, delivery?.id ?? '')).status).toBe(
      'pending',
    );
    await expect(redeliverWebhookDelivery(deps, own.id, endpoint.id, 'wd_none')).rejects.toMatchObject({
      code: 'delivery_not_found',
    });
    await deleteWebhookEndpoint(deps, own.id, endpoint.id);
    expect(await listWebhookEndpoints(deps, own.id)).toEqual([]);
  });
});
