import { describe, expect, it } from 'vitest';
import { createRedactor, redactSecrets, redactValue } from './redact.js';

describe('createRedactor', () => {
  const redact = createRedactor([
    'password-of-admin',
    'password-of-admin-longer',
    null,
    undefined,
    '',
    'short',
  ]);

  it('blanks the configured values wherever they occur, longest first, and the key shapes', () => {
    expect(redact('a password-of-admin-longer b password-of-admin c')).toBe('a [redacted] b [redacted] c');
    expect(redact(`ajs_${'x'.repeat(40)} sk-${'y'.repeat(20)}`)).toBe('ajs_[redacted] [redacted]');
  });

  it('leaves values too short to be told from words, and texts without secrets, as they are', () => {
    expect(redact('a short text')).toBe('a short text');
    expect(redactSecrets('nothing here')).toBe('nothing here');
  });

  it('redacts every string of a value, keys included', () => {
    const value = {
      list: ['password-of-admin', 3, null],
      'password-of-admin': { deep: 'x password-of-admin' },
    };
    expect(redactValue(value, redact)).toEqual({
      list: ['[redacted]', 3, null],
      '[redacted]': { deep: 'x [redacted]' },
    });
  });
});
