import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from './http.js';

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90);
    // A date already past asks for no wait at all.
    expect(retryAfterSeconds('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('', now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});
