import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from './json.js';

const bytes = (text: string) => Buffer.from(text);

describe('parseJsonBytes', () => {
  it('reads UTF-8 JSON, keys named like prototypes only where they are harmless', () => {
    expect(parseJsonBytes(bytes('{"a":[1,"é"],"prototype":1,"constructor":"x"}'))).toEqual({
      a: [1, 'é'],
      prototype: 1,
      constructor: 'x',
    });
  });

  it.each([
    ['not JSON', bytes('{"a":'), 'The request body is not valid JSON.'],
    ['empty', bytes(''), 'The request body is not valid JSON.'],
    ['not UTF-8', Buffer.from([0x22, 0xc3, 0x28, 0x22]), 'The request body is not valid UTF-8.'],
    [
      'a __proto__ key',
      bytes('{"__proto__":{"admin":true}}'),
      'The request body has a forbidden key (__proto__ or constructor).',
    ],
    [
      'a constructor.prototype key, nested',
      bytes('[{"x":{"constructor":{"prototype":{"admin":true}}}}]'),
      'The request body has a forbidden key (__proto__ or constructor).',
    ],
  ])('refuses a body that is %s with invalid_json', (_name, body, message) => {
    expect(() => parseJsonBytes(body)).toThrow(expect.objectContaining({ code: 'invalid_json', message }));
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
