import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewApiKey } from '../../src/domain/api-key.js';
import { generateKey } from '../../src/domain/keys.js';
import type { Project } from '../../src/domain/project.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

// Instance keys (project_id null) work on every project, like the hosted API's organisation keys,
// and are checked like project keys in every other way.
describe.each(testDialects())('instance keys on %s', (dialect) => {
  let t: TestApp;
  let other: Project;
  beforeAll(async () => {
    t = await startTestApp(dialect);
    other = await t.store.projects.create({ name: 'Handbook', repository: '/srv/handbook.git' });
  });
  afterAll(() => t.close());

  const instanceKey = async (options: Partial<Omit<NewApiKey, 'key'>> = {}) => {
    const key = generateKey();
    const record = await t.store.apiKeys.create({
      projectId: null,
      key,
      name: 'org',
      scopes: ['read', 'write'],
      ...options,
    });
    return { key, record };
  };
  const call = (key: string, method: 'GET' | 'POST', url: string, extra: { remoteAddress?: string } = {}) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(method === 'POST' ? { payload: { prompt: 'Fix the typo' } } : {}),
      ...extra,
    });

  it('creates, reads, follows up and archives jobs on every project', async () => {
    const { key, record } = await instanceKey();
    expect(record.projectId).toBeNull();
    for (const project of [t.project, other]) {
      const base = `/v2/agent/${project.id}/job`;
      const created = await call(key, 'POST', base);
      expect(created.statusCode, created.body).toBe(201);
      const job = created.json();
      expect(job.projectId).toBe(project.id);
      expect((await call(key, 'GET', `${base}/${job.id}`)).json().id).toBe(job.id);
      expect((await call(key, 'GET', base)).json().jobs.map((j: { id: string }) => j.id)).toContain(job.id);
      expect((await call(key, 'POST', `${base}/${job.id}/message`)).statusCode).toBe(200);
      expect((await call(key, 'GET', `${base}/${job.id}/events`)).statusCode).toBe(200);
      const archived = await t.app.inject({
        method: 'POST',
        url: `${base}/${job.id}/archive`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(archived.json().status).toBe('archived');
    }
    // A job of one project is not found through another's path, whatever the key.
    const job = (await call(key, 'POST', `/v2/agent/${t.project.id}/job`)).json();
    const elsewhere = await call(key, 'GET', `/v2/agent/${other.id}/job/${job.id}`);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().code).toBe('job_not_found');
  });

  it('answers 404 project_not_found for a project that does not exist', async () => {
    const { key } = await instanceKey();
    for (const projectId of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'no-such-project']) {
      const response = await call(key, 'GET', `/v2/agent/${projectId}/job`);
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('project_not_found');
    }
  });

  it('leaves project keys to their own project', async () => {
    const response = await call(t.key, 'GET', `/v2/agent/${other.id}/job`);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('forbidden');
  });

  it('keeps scopes, expiry, the IP allowlist and revocation', async () => {
    const url = `/v2/agent/${other.id}/job`;
    const readOnly = await instanceKey({ scopes: ['read'] });
    expect((await call(readOnly.key, 'GET', url)).statusCode).toBe(200);
    const write = await call(readOnly.key, 'POST', url);
    expect([write.statusCode, write.json().code]).toEqual([403, 'forbidden']);
    const writeOnly = await instanceKey({ scopes: ['write'] });
    expect((await call(writeOnly.key, 'GET', url)).statusCode).toBe(403);

    const expired = await instanceKey({ expiresAt: '2020-01-01T00:00:00.000Z' });
    const late = await call(expired.key, 'GET', url);
    expect([late.statusCode, late.json().code]).toEqual([401, 'unauthorized']);
    expect(late.headers['www-authenticate']).toMatch(/^Bearer/);

    const office = await instanceKey({ ipAllowlist: ['10.0.0.0/8'] });
    expect((await call(office.key, 'GET', url, { remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
    const outside = await call(office.key, 'GET', url, { remoteAddress: '192.0.2.1' });
    expect([outside.statusCode, outside.json().code]).toEqual([403, 'forbidden']);

    const revoked = await instanceKey();
    expect((await call(revoked.key, 'GET', url)).statusCode).toBe(200);
    // Revoked as an instance key: not through a project it works on.
    expect(await t.store.apiKeys.revoke(other.id, revoked.record.id)).toBe(false);
    expect(await t.store.apiKeys.revoke(null, revoked.record.id)).toBe(true);
    const refused = await call(revoked.key, 'GET', url);
    expect([refused.statusCode, refused.json().code]).toEqual([401, 'unauthorized']);
  });

  it('lists instance keys apart from project keys, and stores only a hash', async () => {
    const { key, record } = await instanceKey({ name: 'listed' });
    const instance = await t.store.apiKeys.list(null);
    expect(instance.map((k) => k.id)).toContain(record.id);
    expect(instance.every((k) => k.projectId === null)).toBe(true);
    expect((await t.store.apiKeys.list(t.project.id)).map((k) => k.id)).not.toContain(record.id);
    const row = await t.store.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key);
    expect(JSON.stringify(record)).not.toContain(key);
  });
});
