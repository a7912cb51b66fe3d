// Bad request bodies: JSON that does not parse or is unsafe, fields the job schema refuses, size, model.
import { expect, it } from 'vitest';
import { create, describeBadInput, type Row } from '../support/bad-input-fixture.js';

const rows: Row[] = [
  // 400 invalid_json
  { name: 'malformed JSON', status: 400, code: 'invalid_json', request: (t) => create(t, '{"prompt": ') },
  {
    name: 'JSON that is not UTF-8',
    status: 400,
    code: 'invalid_json',
    request: (t) =>
      create(
        t,
        Buffer.from([
          0x7b, 0x22, 0x70, 0x72, 0x6f, 0x6d, 0x70, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d,
        ]),
      ),
  },
  {
    name: '__proto__ key',
    status: 400,
    code: 'invalid_json',
    request: (t) => create(t, '{"prompt":"x","__proto__":{"admin":true}}'),
  },
  {
    name: 'constructor.prototype key',
    status: 400,
    code: 'invalid_json',
    request: (t) => create(t, '{"prompt":"x","constructor":{"prototype":{"a":1}}}'),
  },
  { name: 'a JSON array body', status: 400, code: 'invalid_request', request: (t) => create(t, '[1,2]') },
  // 400 invalid_request
  { name: 'missing prompt', status: 400, code: 'invalid_request', request: (t) => create(t, {}) },
  { name: 'empty prompt', status: 400, code: 'invalid_request', request: (t) => create(t, { prompt: '' }) },
  {
    name: 'whitespace prompt',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: ' \n\t ' }),
  },
  {
    name: 'overlong prompt',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x'.repeat(32_001) }),
  },
  {
    name: 'prompt of the wrong type',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 42 }),
  },
  {
    name: 'unknown field',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x', priority: 'high' }),
  },
  {
    name: 'prompt with control characters',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'ring \u0007 bell' }),
  },
  {
    name: 'prompt with a lone surrogate',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, '{"prompt":"half \\ud800 pair"}'),
  },
  {
    name: 'draft of the wrong type',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x', draft: 'yes' }),
  },
  {
    name: 'baseRef that is no branch',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x', baseRef: '../main' }),
  },
  // 413
  {
    name: 'body over 64 KiB',
    status: 413,
    code: 'payload_too_large',
    request: (t) => create(t, { prompt: 'x'.repeat(70_000) }),
  },
  // 422
  {
    name: 'model with an unknown provider',
    status: 422,
    code: 'model_not_allowed',
    request: (t) => create(t, { prompt: 'x', model: 'acme:big-brain' }),
  },
];

describeBadInput(rows, (app) => {
  it('gives validation errors details with paths', async () => {
    const t = app();
    const response = await t.app.inject(create(t, { prompt: '', extra: 1 }));
    expect(response.json().details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body/) })]),
    );
  });
});
