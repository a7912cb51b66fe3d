import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint, sha256 } from '../../src/api/routes/jobs.js';
import { errorSchema } from '../../src/api/schemas.js';
import { generateKey } from '../../src/domain/keys.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

interface Row {
  name: string;
  status: number;
  code: string;
  /** Builds the request; `t` is the running app with its project, key and a finished job. */
  request: (t: TestApp, ctx: Context) => InjectOptions | Promise<InjectOptions>;
  headers?: Record<string, string | RegExp>;
}

interface Context {
  jobId: string;
  archivedJobId: string;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const jobs = (t: TestApp) => `/v2/agent/${t.project.id}/job`;
const create = (t: TestApp, payload: unknown, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST',
  url: jobs(t),
  headers: { ...bearer(t.key), 'content-type': 'application/json', ...headers },
  payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
});
const get = (t: TestApp, url: string, key = t.key): InjectOptions => ({
  method: 'GET',
  url,
  headers: bearer(key),
});

/**
 * Ids that name no job, of every shape a client may hold or an attacker may try: each is 404
 * job_not_found on every job route, and none reaches the database as anything but a parameter.
 */
const unknownJobIds: [string, string][] = [
  ['a ULID', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  ['a UUID', '3f1c9a52-8d7e-4b1a-9c3e-2f6d5a4b7c81'],
  ['a word', 'does-not-exist'],
  ['a 1,024-character id', 'x'.repeat(1024)],
  ['unicode', encodeURIComponent('tâche-😀-任务')],
  ['a NUL byte', 'job%00id'],
  ['SQL', encodeURIComponent("x' OR '1'='1")],
  ['HTML', 'job%20%3Cscript%3E'],
  ['a dot-dot path', '..%2F..%2Fetc'],
];

function unknownJobRows(): Row[] {
  const routes: [string, (t: TestApp, id: string) => InjectOptions][] = [
    ['GET job', (t, id) => get(t, `${jobs(t)}/${id}`)],
    ['message', (t, id) => ({ ...create(t, { prompt: 'more' }), url: `${jobs(t)}/${id}/message` })],
    ['archive', (t, id) => ({ ...create(t, {}), url: `${jobs(t)}/${id}/archive` })],
    ['events', (t, id) => get(t, `${jobs(t)}/${id}/events`)],
    [
      'events SSE',
      (t, id) => ({
        ...get(t, `${jobs(t)}/${id}/events`),
        headers: { ...bearer(t.key), accept: 'text/event-stream' },
      }),
    ],
  ];
  return routes.flatMap(([route, request]) =>
    unknownJobIds.map(([shape, id]) => ({
      name: `${route} with ${shape} that names no job`,
      status: 404,
      code: 'job_not_found',
      request: (t: TestApp) => request(t, id),
    })),
  );
}

// Every row of the DESIGN errors table, and the extra cases the service-core issue names.
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
  {
    name: 'malformed Idempotency-Key',
    status: 400,
    code: 'invalid_request',
    request: (t) => create(t, { prompt: 'x' }, { 'idempotency-key': 'x'.repeat(300) }),
  },
  {
    name: 'bad cursor',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?cursor=not-a-cursor`),
  },
  { name: 'limit of 0', status: 400, code: 'invalid_request', request: (t) => get(t, `${jobs(t)}?limit=0`) },
  {
    name: 'limit of 101',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?limit=101`),
  },
  {
    name: 'limit that is no number',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?limit=ten`),
  },
  {
    name: 'unknown status filter',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?status=running`),
  },
  {
    name: 'unknown query parameter',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?sort=asc`),
  },
  {
    name: 'negative events after',
    status: 400,
    code: 'invalid_request',
    request: (t, c) => get(t, `${jobs(t)}/${c.jobId}/events?after=-1`),
  },
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
  // 404
  {
    name: 'unknown project',
    status: 404,
    code: 'project_not_found',
    request: (t) => get(t, '/v2/agent/no-such-project/job'),
  },
  {
    name: 'project id with a NUL byte',
    status: 404,
    code: 'project_not_found',
    request: (t) => get(t, '/v2/agent/no%00such/job'),
  },
  ...unknownJobRows(),
  {
    name: 'unknown route',
    status: 404,
    code: 'not_found',
    request: () => ({ method: 'GET', url: '/v2/nothing/here' }),
  },
  // 414: longer than any id, refused by the router before authentication
  {
    name: 'job id over 1,024 characters',
    status: 414,
    code: 'uri_too_long',
    request: (t) => get(t, `${jobs(t)}/${'a'.repeat(1025)}`),
  },
  // 405
  {
    name: 'wrong method',
    status: 405,
    code: 'method_not_allowed',
    request: (t) => ({ method: 'DELETE', url: jobs(t), headers: bearer(t.key) }),
    headers: { allow: /GET.*POST|POST.*GET/ },
  },
  // 409
  {
    name: 'follow-up on an archived job',
    status: 409,
    code: 'job_archived',
    request: (t, c) => ({ ...create(t, { prompt: 'more' }), url: `${jobs(t)}/${c.archivedJobId}/message` }),
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
  // 413, 415
  {
    name: 'body over 64 KiB',
    status: 413,
    code: 'payload_too_large',
    request: (t) => create(t, { prompt: 'x'.repeat(70_000) }),
  },
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
  // 422
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
  {
    name: 'model with an unknown provider',
    status: 422,
    code: 'model_not_allowed',
    request: (t) => create(t, { prompt: 'x', model: 'acme:big-brain' }),
  },
];

describe.each(testDialects())('bad input on %s', (dialect) => {
  let t: TestApp;
  const context: Context = { jobId: '', archivedJobId: '' };
  const count = async () => {
    const jobsCount = await t.store.db.kysely
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const events = await t.store.db.kysely
      .selectFrom('job_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return { jobs: Number(jobsCount.n), events: Number(events.n) };
  };

  beforeAll(async () => {
    // Every row creates a job afterwards: more than the default hourly budget allows.
    t = await startTestApp(dialect, {
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '100000',
      AGENTJOBS_MAX_ACTIVE_JOBS: '0',
    });
    context.jobId = (await t.app.inject(create(t, { prompt: 'a job' }))).json().id;
    context.archivedJobId = (await t.app.inject(create(t, { prompt: 'an archived job' }))).json().id;
    await t.app.inject({
      method: 'POST',
      url: `${jobs(t)}/${context.archivedJobId}/archive`,
      headers: bearer(t.key),
    });
  });
  afterAll(() => t.close());

  it.each(rows)('$name → $status $code', async (row) => {
    const request = await row.request(t, context);
    const before = await count();
    const response = await t.app.inject(request);

    expect(response.statusCode).toBe(row.status);
    const body = errorSchema.strict().parse(response.json());
    expect(body.code).toBe(row.code);
    expect(body.error.length).toBeGreaterThan(5);
    expect(body.requestId).toBe(response.headers['x-request-id']);
    expect(response.body).not.toMatch(/at .+\.(ts|js):\d+/); // no stack trace
    for (const [name, value] of Object.entries(row.headers ?? {})) {
      expect(String(response.headers[name])).toMatch(value);
    }
    expect(await count()).toEqual(before);

    // The service is still fine afterwards.
    const next = await t.app.inject(create(t, { prompt: 'a good request after a bad one' }));
    expect(next.statusCode).toBe(201);
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON; Charset="utf-8"',
    'application/json; charset=utf8',
  ])('takes JSON sent as %s, for a create and a follow-up', async (contentType) => {
    const created = await t.app.inject(create(t, { prompt: 'a job' }, { 'content-type': contentType }));
    expect(created.statusCode).toBe(201);
    const followUp = await t.app.inject({
      ...create(t, { prompt: 'a follow-up' }, { 'content-type': contentType }),
      url: `${jobs(t)}/${created.json().id}/message`,
    });
    expect(followUp.statusCode, followUp.body).toBeLessThan(300);
  });

  it('gives validation errors details with paths', async () => {
    const response = await t.app.inject(create(t, { prompt: '', extra: 1 }));
    expect(response.json().details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body/) })]),
    );
  });
});

describe.each(testDialects())('budgets on %s', (dialect) => {
  it('429 rate_limited with Retry-After and RateLimit headers when the hourly budget is spent', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_RATE_LIMIT_PER_HOUR: '2' });
    try {
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await t.app.inject(create(t, { prompt: `p${i}` }))).statusCode);
      expect(statuses).toEqual([201, 201]);
      const before = await t.store.jobs.list(t.project.id, { limit: 100 });
      const refused = await t.app.inject(create(t, { prompt: 'one too many' }));
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['ratelimit-limit']).toBe('2');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect((await t.store.jobs.list(t.project.id, { limit: 100 })).jobs).toHaveLength(before.jobs.length);
      // Reads are not part of the budget.
      expect((await t.app.inject(get(t, jobs(t)))).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('429 too_many_active_jobs when the project has too many active jobs', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_MAX_ACTIVE_JOBS: '1' });
    try {
      const first = await t.app.inject(create(t, { prompt: 'busy' }));
      expect(first.statusCode).toBe(201);
      const refused = await t.app.inject(create(t, { prompt: 'waiting' }));
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('too_many_active_jobs');
      expect(refused.headers['retry-after']).toBeDefined();
      // Archiving frees the slot.
      await t.app.inject({
        method: 'POST',
        url: `${jobs(t)}/${first.json().id}/archive`,
        headers: bearer(t.key),
      });
      expect((await t.app.inject(create(t, { prompt: 'now' }))).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('429 too_many_active_jobs holds when creates arrive together', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_MAX_ACTIVE_JOBS: '3' });
    try {
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => t.app.inject(create(t, { prompt: `together ${i}` }))),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
      const active = await t.store.jobs.list(t.project.id, { status: 'active', limit: 100 });
      expect(active.jobs).toHaveLength(3);
    } finally {
      await t.close();
    }
  });
});
