import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSchema } from '../../src/api/schemas.js';
import { webhookSchema, webhookWithSecretSchema } from '../../src/api/webhook-schemas.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { embeddedAddressRows, publicEmbeddedAddresses } from '../support/webhook-addresses.js';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const hooks = (t: TestApp, projectId = t.project.id) => `/v2/agent/${projectId}/webhooks`;

async function createHook(t: TestApp, body: Record<string, unknown>, key = t.key) {
  return t.app.inject({
    method: 'POST',
    url: hooks(t),
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

interface UrlRow {
  url: string;
  /** The answer without AGENTJOBS_WEBHOOK_ALLOW_PRIVATE, and with it. */
  refused: boolean;
  refusedWhenAllowed: boolean;
}

// Refused URLs answer 422 webhook_url_not_allowed whether private ranges are allowed or not, except
// loopback and private ones, which the setting lets through.
const urlRows: UrlRow[] = [
  { url: 'ftp://127.0.0.1/hook', refused: true, refusedWhenAllowed: true },
  { url: 'javascript:alert(1)', refused: true, refusedWhenAllowed: true },
  { url: 'file:///etc/passwd', refused: true, refusedWhenAllowed: true },
  { url: 'not a url', refused: true, refusedWhenAllowed: true },
  { url: 'http://user:secret@127.0.0.1/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://user@127.0.0.1/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://127.0.0.1/hook#part', refused: true, refusedWhenAllowed: true },
  { url: 'http://127.0.0.1/hook#', refused: true, refusedWhenAllowed: true },
  { url: `http://127.0.0.1/${'a'.repeat(2040)}`, refused: true, refusedWhenAllowed: true },
  { url: 'http://127.0.0.1:9/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://localhost:9/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://2130706433/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://0.0.0.0/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://[::1]/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://[::ffff:127.0.0.1]/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://10.1.2.3/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://172.20.0.1/hook', refused: true, refusedWhenAllowed: false },
  { url: 'https://192.168.1.10/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://[fd12:3456::1]/hook', refused: true, refusedWhenAllowed: false },
  { url: 'http://169.254.169.254/latest/meta-data/', refused: true, refusedWhenAllowed: true },
  { url: 'http://169.254.1.1/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://[fe80::1]/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://[fd00:ec2::254]/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://100.100.100.200/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://metadata.google.internal/computeMetadata/v1/', refused: true, refusedWhenAllowed: true },
  { url: 'http://224.0.0.1/hook', refused: true, refusedWhenAllowed: true },
  { url: 'http://255.255.255.255/hook', refused: true, refusedWhenAllowed: true },
];

describe.each(testDialects())('webhook endpoints over the API, on %s', (dialect) => {
  let strict: TestApp;
  let allowing: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    strict = await startTestApp(dialect);
    allowing = await startTestApp(dialect, { AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' }, strict.database);
    other = await startTestApp(dialect, { AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' }, strict.database);
  });
  afterAll(async () => {
    await other?.close();
    await allowing?.close();
    await strict?.close();
  });

  describe.each(urlRows)('url $url', (row) => {
    it.each([
      ['by default', () => strict, row.refused],
      ['with AGENTJOBS_WEBHOOK_ALLOW_PRIVATE', () => allowing, row.refusedWhenAllowed],
    ] as const)('%s', async (_name, app, refused) => {
      const t = app();
      const response = await createHook(t, { url: row.url });
      if (refused) {
        expect(response.statusCode, response.body).toBe(422);
        expect(errorSchema.parse(response.json())).toMatchObject({ code: 'webhook_url_not_allowed' });
        // A URL with credentials is never echoed back with them.
        expect(response.body).not.toContain('secret@');
      } else {
        expect(response.statusCode, response.body).toBe(201);
      }
    });
  });

  // Each IPv6 form that carries an IPv4 address is judged by that address (issue 24, finding 7).
  describe.each(embeddedAddressRows)('$form: $address', (row) => {
    const url = `http://[${row.address}]:9/hook`;
    it('is refused by default, in the one wording', async () => {
      const response = await createHook(strict, { url });
      expect(response.statusCode, response.body).toBe(422);
      const error = errorSchema.parse(response.json());
      expect(error).toMatchObject({ code: 'webhook_url_not_allowed' });
      expect(error.error).toMatch(/^The URL is not allowed: .*\.$/);
      expect(error.error).toContain(`The URL is not allowed: ${row.address} is ${row.says}`);
    });
    it(`is ${row.refusedWhenAllowed ? 'refused' : 'saved'} with AGENTJOBS_WEBHOOK_ALLOW_PRIVATE`, async () => {
      const response = await createHook(allowing, { url });
      expect(response.statusCode, response.body).toBe(row.refusedWhenAllowed ? 422 : 201);
    });
  });

  it.each(publicEmbeddedAddresses)('saves [%s]: it carries a public IPv4 address', async (address) => {
    const response = await createHook(strict, { url: `http://[${address}]:9/hook` });
    expect(response.statusCode, response.body).toBe(201);
  });

  it('says a refused URL in one sentence, the same in the message and the detail', async () => {
    const response = await createHook(strict, { url: 'http://127.0.0.1:9/hook' });
    const error = errorSchema.parse(response.json());
    expect(error.error).toBe(
      'The URL is not allowed: 127.0.0.1 is a loopback address (AGENTJOBS_WEBHOOK_ALLOW_PRIVATE=true allows it).',
    );
    expect(error.details).toEqual([{ path: 'body.url', message: error.error }]);
    const scheme = errorSchema.parse((await createHook(strict, { url: 'ftp://127.0.0.1/hook' })).json());
    expect(scheme.error).toBe('The URL is not allowed: it must be an http or https URL.');
  });

  it.each([
    ['an unknown event type', { url: 'http://127.0.0.1:9/h', events: ['job.exploded'] }],
    ['events that are not a list', { url: 'http://127.0.0.1:9/h', events: 'job.created' }],
    ['an unknown field', { url: 'http://127.0.0.1:9/h', secret: 'whsec_mine' }],
    ['no url', { events: ['job.created'] }],
    ['a url that is not text', { url: 42 }],
    ['an overlong description', { url: 'http://127.0.0.1:9/h', description: 'x'.repeat(501) }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await createHook(allowing, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request' });
  });

  it('creates with the secret shown once, lists, reads, changes and deletes', async () => {
    const t = allowing;
    const created = await createHook(t, {
      url: 'http://127.0.0.1:9/created',
      events: ['job.completed', 'job.failed'],
      description: 'CI',
    });
    expect(created.statusCode).toBe(201);
    const endpoint = webhookWithSecretSchema.parse(created.json());
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.headers.location).toBe(`${hooks(t)}/${endpoint.id}`);
    expect(endpoint).toMatchObject({
      enabled: true,
      events: ['job.completed', 'job.failed'],
      description: 'CI',
    });

    const list = await t.app.inject({ method: 'GET', url: hooks(t), headers: bearer(t.key) });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('whsec_');
    const one = await t.app.inject({
      method: 'GET',
      url: `${hooks(t)}/${endpoint.id}`,
      headers: bearer(t.key),
    });
    expect(webhookSchema.strict().parse(one.json())).toMatchObject({ id: endpoint.id });

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${hooks(t)}/${endpoint.id}`,
      headers: { ...bearer(t.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ enabled: false, events: null, url: 'http://127.0.0.1:9/changed' }),
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ enabled: false, events: null, url: 'http://127.0.0.1:9/changed' });
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `${hooks(t)}/${endpoint.id}`,
      headers: { ...bearer(t.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://169.254.169.254/' }),
    });
    expect(refused.statusCode).toBe(422);

    const rotated = await t.app.inject({
      method: 'POST',
      url: `${hooks(t)}/${endpoint.id}/rotate-secret`,
      headers: bearer(t.key),
    });
    expect(rotated.statusCode).toBe(200);
    const withNew = webhookWithSecretSchema.parse(rotated.json());
    expect(withNew.secret).not.toBe(endpoint.secret);
    expect(Date.parse(withNew.previousSecretExpiresAt ?? '') - Date.now()).toBeGreaterThan(23 * 3_600_000);

    const deliveries = await t.app.inject({
      method: 'GET',
      url: `${hooks(t)}/${endpoint.id}/deliveries?limit=5`,
      headers: bearer(t.key),
    });
    expect(deliveries.json()).toEqual({ deliveries: [], nextCursor: null });

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `${hooks(t)}/${endpoint.id}`,
      headers: bearer(t.key),
    });
    expect(deleted.statusCode).toBe(204);
    const gone = await t.app.inject({
      method: 'GET',
      url: `${hooks(t)}/${endpoint.id}`,
      headers: bearer(t.key),
    });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'webhook_not_found' });

    // Secrets never reach the log.
    for (const secret of [endpoint.secret, withNew.secret]) expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('lets a read key list but not create (403)', async () => {
    const t = allowing;
    const readKey = await t.makeKey({ scopes: ['read'] });
    const response = await createHook(t, { url: 'http://127.0.0.1:9/read' }, readKey);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'forbidden' });
    const list = await t.app.inject({ method: 'GET', url: hooks(t), headers: bearer(readKey) });
    expect(list.statusCode).toBe(200);
    const writeOnly = await t.makeKey({ scopes: ['write'] });
    const listed = await t.app.inject({ method: 'GET', url: hooks(t), headers: bearer(writeOnly) });
    expect(listed.statusCode).toBe(403);
  });

  it("answers 404 for another project's endpoint on every route", async () => {
    const theirs = webhookWithSecretSchema.parse(
      (await createHook(other, { url: 'http://127.0.0.1:9/theirs' })).json(),
    );
    const t = allowing;
    const url = `${hooks(t)}/${theirs.id}`;
    const json = { ...bearer(t.key), 'content-type': 'application/json' };
    const requests = [
      { method: 'GET', url, headers: bearer(t.key) },
      { method: 'PATCH', url, headers: json, payload: '{"enabled":false}' },
      { method: 'DELETE', url, headers: bearer(t.key) },
      { method: 'POST', url: `${url}/rotate-secret`, headers: bearer(t.key) },
      { method: 'GET', url: `${url}/deliveries`, headers: bearer(t.key) },
      {
        method: 'POST',
        url: `${url}/deliveries/01JAAAAAAAAAAAAAAAAAAAAAAA/redeliver`,
        headers: bearer(t.key),
      },
      { method: 'GET', url: `${hooks(t)}/not-an-id-at-all`, headers: bearer(t.key) },
    ] as const;
    for (const request of requests) {
      const response = await t.app.inject(request);
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(response.json()).toMatchObject({ code: 'webhook_not_found' });
    }
    // The other project's endpoint is untouched.
    const still = await other.app.inject({
      method: 'GET',
      url: `${hooks(other)}/${theirs.id}`,
      headers: bearer(other.key),
    });
    expect(still.json()).toMatchObject({ enabled: true });
    // And a key of one project on another's path is refused as ever.
    const cross = await t.app.inject({ method: 'GET', url: hooks(other), headers: bearer(t.key) });
    expect(cross.statusCode).toBe(403);
  });

  it('refuses a delivery id the endpoint does not have (404)', async () => {
    const t = allowing;
    const mine = webhookWithSecretSchema.parse(
      (await createHook(t, { url: 'http://127.0.0.1:9/mine' })).json(),
    );
    const response = await t.app.inject({
      method: 'POST',
      url: `${hooks(t)}/${mine.id}/deliveries/nope/redeliver`,
      headers: bearer(t.key),
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'delivery_not_found' });
    const cursor = await t.app.inject({
      method: 'GET',
      url: `${hooks(t)}/${mine.id}/deliveries?cursor=bad`,
      headers: bearer(t.key),
    });
    expect(cursor.statusCode).toBe(400);
  });
});
