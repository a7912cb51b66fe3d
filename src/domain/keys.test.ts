import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, isWellFormedKey, KEY_PREFIX, sameHash } from './keys.js';

describe('API keys', () => {
  it('accepts the keys it generates and rejects a mistyped or made-up one', () => {
    const key = generateKey();
    expect(isWellFormedKey(key)).toBe(true);
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    expect(isWellFormedKey(`${key.slice(0, -1)}${last}`)).toBe(false);
    const typo = key[10] === 'A' ? 'B' : 'A';
    expect(isWellFormedKey(`${key.slice(0, 10)}${typo}${key.slice(11)}`)).toBe(false);
    expect(isWellFormedKey(`${KEY_PREFIX}${'a'.repeat(46)}`)).toBe(false);
    expect(isWellFormedKey(`${key}x`)).toBe(false);
    expect(isWellFormedKey(key.replace(KEY_PREFIX, 'sk_'))).toBe(false);
  });

  it('hashes with hex SHA-256 of the whole key', () => {
    const key = generateKey();
    expect(hashKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('compares digests by every character', () => {
    const digest = hashKey(generateKey());
    expect(sameHash(digest, digest.slice())).toBe(true);
    expect(sameHash(digest, `${digest.slice(0, -1)}${digest.at(-1) === '0' ? '1' : '0'}`)).toBe(false);
    expect(sameHash(digest, digest.slice(0, -1))).toBe(false);
    expect(sameHash('', '')).toBe(true);
  });
});
