import { afterEach, describe, expect, it } from 'vitest';
import { adminPasswordHash, ensureAdminPassword, verifyPassword } from '../src/domain/password.js';
import { openTestStore, type TestStore } from './support/db.js';

describe('ensureAdminPassword', () => {
  let database: TestStore;
  afterEach(() => database?.close());

  it('generates a password once, for the first process only', async () => {
    database = await openTestStore('sqlite');
    const first = await ensureAdminPassword(database.store.admin, null);
    expect(first.generated).toMatch(/^\w{20}$/);
    expect(await ensureAdminPassword(database.store.admin, null)).toEqual({ generated: null });
    expect(
      await verifyPassword(first.generated ?? '', (await adminPasswordHash(database.store.admin)) ?? ''),
    ).toBe(true);
  });

  it('lets the configured password win and signs everyone out when it changes', async () => {
    database = await openTestStore('sqlite');
    await ensureAdminPassword(database.store.admin, null);
    await database.store.admin.createSession(60_000);
    expect(await ensureAdminPassword(database.store.admin, 'configured password')).toEqual({
      generated: null,
    });
    const hash = (await adminPasswordHash(database.store.admin)) ?? '';
    expect(await verifyPassword('configured password', hash)).toBe(true);
    expect(await database.store.db.kysely.selectFrom('admin_sessions').selectAll().execute()).toEqual([]);
    // Unchanged: the stored hash stays as it is and sessions survive.
    const { token } = await database.store.admin.createSession(60_000);
    await ensureAdminPassword(database.store.admin, 'configured password');
    expect(await adminPasswordHash(database.store.admin)).toBe(hash);
    expect(await database.store.admin.findSession(token)).toMatchObject({ expired: false });
  });
});
