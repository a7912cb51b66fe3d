// Bad request headers: the API key (401, 403), the Idempotency-Key, and the body's Content-Type.
import { expect, it } from 'vitest';
import { generateKey } from '../../src/domain/keys.js';
import { fingerprint, sha256 } from '../../src/operations/create-job.js';
import { bearer, create, describeBadInput, get, jobs, type Row } from '../support/bad-input-fixture.js';

const rows: Row[] = [
  // 401 unauthorized
  {
    name: 'no key',
    status: 401,
    code: 'unauthorized',
    request: (t) => ({ method: 'GET', url: jobs(t) }),
    headers: { 'www-authenticate': /^Bearer/ },
  },
  {
    name: 'key in the wrong header',
    status: 401,
    code: 'unauthorized',
    request: (t) => ({ method: 'GET', url: jobs(t), headers: { 'x-api-key': t.key } }),
  },
  {
    name: 'key with the Basic scheme',
    status: 401,
    code: 'unauthorized',
    request: (t) => ({ method: 'GET', url: jobs(t), headers: { authorization: `Basic ${t.key}` } }),
    headers: { 'www-authenticate': /^Bearer/ },
  },
  { name: 'malformed key', status: 401, code: 'unauthorized', request: (t) => get(t, jobs(t), 'ajs_short') },
  {
    name: 'key with a bad checksum',
    status: 401,
    code: 'unauthorized',
    request: (t) => get(t, jobs(t), `${t.key.slice(0, -1)}${t.key.endsWith('A') ? 'B' : 'A'}`),
  },
  { name: 'unknown key', status: 401, code: 'unauthorized', request: (t) => get(t, jobs(t), generateKey()) },
  {
    name: 'revoked key',
    status: 401,
    code: 'unauthorized',
    request: async (t) => {
      const key = await t.makeKey();
      const record = await t.store.apiKeys.list(t.project.id);
      await t.store.apiKeys.revoke(t.project.id, record[0]?.id ?? '');
      return get(t, jobs(t), key);
    },
  },
  {
    name: 'expired key',
    status: 401,
    code: 'unauthorized',
    request: async (t) => get(t, jobs(t), await t.makeKey({ expiresAt: '2020-01-01T00:00:00.000Z' })),
  },
  // 403 forbidden
  {
    name: 'key of another project',
    status: 403,
    code: 'forbidden',
    request: async (t) => {
      const other = await t.store.projects.create({ name: 'Other', repository: '/srv/other.git' });
      return get(t, `/v2/agent/${other.id}/job`);
    },
  },
  {
    name: 'read-only key writing',
    status: 403,
    code: 'forbidden',
    request: async (t) => ({
      ...create(t, { prompt: 'x' }),
      headers: { ...bearer(await t.makeKey({ scopes: ['read'] })), 'content-type': 'application/json' },
    }),
  },
  {
    name: 'write-only key reading',
    status: 403,
    code: 'forbidden',
    request: async (t) => get(t, jobs(t), await t.makeKey({ scopes: ['write'] })),
  },
  {
    name: 'key from a disallowed IP',
    status: 403,
    code: 'forbidden',
    request: async (t) => ({
      ...get(t, jobs(t), await t.makeKey({ ipAllowlist: ['10.0.0.0/8', '2001:db8::/32'] })),
      remoteAddress: '192.0.2.1',
    }),
  },
  // Idempotency-Key: 400 invalid_request, 409, 422
  {
    name: 'malformed Idempotency-Key',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x' }, { 'idempotency-key': 'x'.repeat(300) }),
  },
  {
    name: 'idempotency key still in flight',
    status: 409,
    code: 'idempotency_in_flight',
    request: async (t) => {
      const key = `in-flight-${Math.random()}`;
      const body = { prompt: 'x' };
      // What a first request with this key, still running, would have reserved.
      await t.store.idempotency.reserve(
        { projectId: t.project.id, key: sha256(key), owner: 'first' },
        fingerprint(body),
      );
      return create(t, body, { 'idempotency-key': key });
    },
  },
  {
    name: 'idempotency key reused with another body',
    status: 422,
    code: 'idempotency_mismatch',
    request: async (t) => {
      const key = `mismatch-${Math.random()}`;
      const first = await t.app.inject(create(t, { prompt: 'one' }, { 'idempotency-key': key }));
      expect(first.statusCode).toBe(201);
      return create(t, { prompt: 'two' }, { 'idempotency-key': key });
    },
  },
  // 415: Content-Type
  {
    name: 'text/plain body',
    status: 415,
    code: 'unsupported_media_type',
    request: (t) => ({
      ...create(t, 'prompt=x'),
      headers: { ...bearer(t.key), 'content-type': 'text/plain' },
    }),
  },
  {
    name: 'form body',
    status: 415,
    code: 'unsupported_media_type',
    request: (t) => ({
      ...create(t, 'prompt=x'),
      headers: { ...bearer(t.key), 'content-type': 'application/x-www-form-urlencoded' },
    }),
  },
  {
    name: 'JSON in another charset',
    status: 415,
    code: 'unsupported_media_type',
    request: (t) => create(t, { prompt: 'x' }, { 'content-type': 'application/json; charset=iso-8859-1' }),
  },
  {
    name: 'JSON in UTF-16',
    status: 415,
    code: 'unsupported_media_type',
    request: (t) => create(t, { prompt: 'x' }, { 'content-type': 'application/json;charset="UTF-16"' }),
  },
];

describeBadInput(rows, (app) => {
  it.each([
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset="utf-8"',
    'application/json; charset=utf8',
  ])('takes JSON sent as %s, for a create and a follow-up', async (contentType) => {
    const t = app();
    const created = await t.app.inject(create(t, { prompt: 'a job' }, { 'content-type': contentType }));
    expect(created.statusCode).toBe(201);
    const followUp = await t.app.inject({
      ...create(t, { prompt: 'a follow-up' }, { 'content-type': contentType }),
      url: `${jobs(t)}/${created.json().id}/message`,
    });
    expect(followUp.statusCode, followUp.body).toBeLessThan(300);
  });
});
