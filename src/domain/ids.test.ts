import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newId } from './ids.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('newId', () => {
  it('makes unique ULIDs that sort in the order they were made', () => {
    const ids = Array.from({ length: 50_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws the random part evenly from all 32 characters, across refills of its pool', () => {
    // Within one millisecond a ULID increments the last one; only the first id of each
    // millisecond draws fresh randomness, so take one id per millisecond (a pool serves 256).
    const counts = new Map<string, number>();
    let last = Date.now();
    for (let drawn = 0; drawn < 300; ) {
      const now = Date.now();
      if (now === last) continue;
      last = now;
      drawn++;
      for (const char of newId().slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    // 4,800 characters: 150 of each expected; a stuck or biased generator misses these bounds.
    for (const char of CROCKFORD) {
      expect(counts.get(char) ?? 0).toBeGreaterThan(75);
      expect(counts.get(char) ?? 0).toBeLessThan(240);
    }
  });
});
