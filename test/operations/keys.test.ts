/**
 * The key operations (`operations/keys.ts`) on every database: every rule refuses with its field typed
 * and stores nothing, the default expiry is 90 days, instance keys sit beside a project's, and a
 * key is revoked only through its owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, isWellFormedKey } from '../../src/domain/keys.js';
import { InputError } from '../../src/operations/input.js';
import { createKey, keyStatus, listKeys, revokeKey } from '../../src/operations/keys.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';

const DAY_MS = 86_400_000;

describe.each(testDialects())('key operations on %s', (dialect) => {
  let t: TestStore;
  let projectId: string;
  beforeAll(async () => {
    t = await openTestStore(dialect);
    projectId = (await t.store.projects.create({ name: 'Docs', repository: '/srv/docs.git' })).id;
  });
  afterAll(async () => t?.close());
  const deps = () => ({ store: t.store });

  it('makes a key that expires in 90 days by default, storing only its hash', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const { key, record } = await createKey(
      deps(),
      { projectId, name: '  ci bot ', scopes: ['read', 'read', 'write'], ipAllowlist: ['10.0.0.0/8', ''] },
      now,
    );
    expect(isWellFormedKey(key)).toBe(true);
    expect(record).toMatchObject({
      projectId,
      name: 'ci bot',
      scopes: ['read', 'write'],
      ipAllowlist: ['10.0.0.0/8'],
      expiresAt: new Date(now + 90 * DAY_MS).toISOString(),
    });
    expect((await t.store.apiKeys.findByHash(hashKey(key)))?.id).toBe(record.id);
  });

  it('names every wrong field at once and stores nothing', async () => {
    const before = (await t.store.apiKeys.list(projectId)).length;
    const refused = await createKey(deps(), {
      projectId,
      name: ' ',
      scopes: ['admin'],
      lifetimeSeconds: 0,
      ipAllowlist: ['300.1.1.1'],
    }).catch((error: unknown) => error);
    expect(InputError.isInstance(refused)).toBe(true);
    expect((refused as InputError).problems.map(({ field, problem }) => [field, problem])).toEqual([
      ['name', 'empty'],
      ['scopes', 'invalid'],
      ['expires', 'invalid'],
      ['ipAllowlist', 'invalid'],
    ]);
    expect((refused as InputError).code).toBe('invalid_request');
    const long = await createKey(deps(), { projectId, name: 'x'.repeat(101), scopes: ['read'] }).catch(
      (error: unknown) => error,
    );
    expect(long).toMatchObject({ problems: [{ field: 'name', problem: 'too_long', limit: 100 }] });
    expect(await t.store.apiKeys.list(projectId)).toHaveLength(before);
  });

  it('refuses a project that does not exist', async () => {
    await expect(createKey(deps(), { projectId: 'nope', name: 'x', scopes: ['read'] })).rejects.toMatchObject(
      {
        code: 'project_not_found',
      },
    );
    await expect(listKeys(deps(), 'nope')).rejects.toMatchObject({ code: 'project_not_found' });
  });

  it('lists instance keys beside a project’s and revokes each only through its owner', async () => {
    const instance = await createKey(deps(), {
      projectId: null,
      name: 'org',
      scopes: ['read'],
      lifetimeSeconds: null,
    });
    expect(instance.record.expiresAt).toBeNull();
    const listed = await listKeys(deps(), projectId);
    expect(listed.instanceKeys.map((key) => key.id)).toEqual([instance.record.id]);
    expect(listed.keys.every((key) => key.projectId === projectId)).toBe(true);
    await expect(revokeKey(deps(), projectId, instance.record.id)).rejects.toMatchObject({
      code: 'not_found',
    });
    await revokeKey(deps(), null, instance.record.id);
    const [revoked] = (await listKeys(deps(), null)).keys;
    expect(revoked && keyStatus(revoked)).toBe('revoked');
    await expect(revokeKey(deps(), null, 'missing')).rejects.toMatchObject({ code: 'not_found' });
  });
});
