import { afterEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/support/db.js';
import {
  adminPasswordHash,
  ensureAdminPassword,
  generatePassword,
  hashPassword,
  verifyPassword,
} from './password.js';

describe('admin password hashing', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const hash = await hashPassword('längeres Passwort');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('längeres Passwort', hash)).toBe(true);
    // The same text in another Unicode form is the same password.
    expect(await verifyPassword('la\u0308ngeres Passwort', hash)).toBe(true);
    expect(await verifyPassword('längeres passwort', hash)).toBe(false);
    expect(await verifyPassword('längeres Passwort', 'plain-text')).toBe(false);
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('generates 20 letters without look-alikes', () => {
    const passwords = Array.from({ length: 200 }, generatePassword);
    for (const password of passwords) expect(password).toMatch(/^[a-km-zA-HJ-NP-Z2-9]{20}$/);
    expect(new Set(passwords).size).toBe(200);
  });
});

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
