import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from './password.js';

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
