import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventListSchema, jobListSchema, jobSchema } from '../../src/api/schemas.js';
import { openSqliteFile } from '../../src/store/sqlite/library.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

describe.each(testDialects())('jobs API on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.key}`, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const base = () => `/v2/agent/${t.project.id}/job`;

  it('creates a job: 201, Location, every field of the contract', async () => {
    const response = await call('POST', base(), { prompt: 'Document the new CLI flags' });
    expect(response.statusCode).toBe(201);
    const job = jobSchema.parse(response.json());
    expect(response.headers.location).toBe(`${base()}/${job.id}`);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(Object.keys(response.json()).sort()).toEqual(Object.keys(jobSchema.shape).sort());
    expect(job).toMatchObject({
      status: 'active',
      phase: 'queued',
      prompt: 'Document the new CLI flags',
      projectId: t.project.id,
      baseRef: 'main',
      prLink: null,
      source: { repository: '/srv/docs.git' },
      draft: false,
    });
    expect(job.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The budget headers are on every counted request, not only on refusals.
    expect(response.headers['ratelimit-limit']).toBe('100');
  });

  it('gets a job and lists jobs newest first with a working cursor', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push((await call('POST', base(), { prompt: `page ${i}` })).json());
    const got = await call('GET', `${base()}/${created[0].id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created[0]);

    const first = jobListSchema.parse((await call('GET', `${base()}?limit=2`)).json());
    expect(first.jobs.map((job) => job.id)).toEqual([created[2].id, created[1].id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = jobListSchema.parse(
      (await call('GET', `${base()}?limit=2&cursor=${first.nextCursor}`)).json(),
    );
    expect(second.jobs[0]?.id).toBe(created[0].id);

    const archived = jobListSchema.parse((await call('GET', `${base()}?status=archived`)).json());
    expect(archived.jobs.every((job) => job.status === 'archived')).toBe(true);
  });

  it.runIf(dialect === 'sqlite')(
    "answers a poll with what another process committed before the request, though this turn's reads began earlier",
    async () => {
      const job = (await call('POST', base(), { prompt: 'Watched from elsewhere' })).json();
      await new Promise((resolve) => setImmediate(resolve));
      // A read of this turn (as a timer's would) opens the turn's snapshot...
      expect((await t.store.jobs.get(t.project.id, job.id))?.title).toBeNull();
      // ...then another process (a worker) commits, and then the poll arrives.
      const other = openSqliteFile(t.database.url.slice('sqlite:'.length));
      other.prepare('update jobs set title = ? where id = ?').run(['Set by the worker', job.id]);
      other.close();
      expect((await call('GET', `${base()}/${job.id}`)).json().title).toBe('Set by the worker');
    },
  );

  it('takes follow-ups, archives once, refuses follow-ups after', async () => {
    const job = (await call('POST', base(), { prompt: 'First' })).json();
    const followed = await call('POST', `${base()}/${job.id}/message`, { prompt: 'And then this' });
    expect(followed.statusCode).toBe(200);
    expect(followed.json().status).toBe('active');

    // Polled twice unchanged (the second answer may come from the kept JSON), then after a change.
    const polled = await call('GET', `${base()}/${job.id}`);
    expect((await call('GET', `${base()}/${job.id}`)).body).toBe(polled.body);
    const archived = await call('POST', `${base()}/${job.id}/archive`);
    expect(archived.statusCode).toBe(200);
    expect(archived.json()).toMatchObject({ status: 'archived', phase: null });
    expect((await call('GET', `${base()}/${job.id}`)).json()).toEqual(archived.json());
    const again = await call('POST', `${base()}/${job.id}/archive`, {});
    expect(again.json()).toEqual(archived.json());

    const refused = await call('POST', `${base()}/${job.id}/message`, { prompt: 'More' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('job_archived');

    const events = eventListSchema.parse((await call('GET', `${base()}/${job.id}/events`)).json());
    expect(events.events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'status'],
      [2, 'message'],
      [3, 'status'],
    ]);
    const after = eventListSchema.parse(
      (await call('GET', `${base()}/${job.id}/events?after=1&limit=1`)).json(),
    );
    expect(after.events.map((event) => event.seq)).toEqual([2]);
    expect(after.nextCursor).toBe('2');
  });

  it('resolves the model: default, allowed, refused', async () => {
    const restricted = await t.store.projects.create({
      name: 'Restricted',
      repository: '/srv/r.git',
      allowedModels: ['openai:gpt-5', 'anthropic:claude-sonnet-4-5'],
      defaultModel: 'openai:gpt-5',
    });
    const key = await t.makeKey({ projectId: restricted.id });
    const url = `/v2/agent/${restricted.id}/job`;
    const post = (payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload });
    expect((await post({ prompt: 'a' })).json().model).toBe('openai:gpt-5');
    expect((await post({ prompt: 'a', model: 'anthropic:claude-sonnet-4-5' })).json().model).toBe(
      'anthropic:claude-sonnet-4-5',
    );
    const refused = await post({ prompt: 'a', model: 'openai:gpt-4o' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe('model_not_allowed');
  });

  it('never answers a null model: with no provider configured the job names the documented default', async () => {
    // startTestApp's configuration names no model and no provider key.
    const created = await call('POST', base(), { prompt: 'Which model?' });
    expect(jobSchema.parse(created.json()).model).toBe('anthropic:claude-sonnet-4-5');
    // A job stored before the model was always recorded shows the default too.
    await t.store.db.kysely
      .updateTable('jobs')
      .set({ model: null })
      .where('id', '=', created.json().id)
      .execute();
    const got = await call('GET', `${base()}/${created.json().id}`);
    expect(got.json().model).toBe('anthropic:claude-sonnet-4-5');
    const listed = jobListSchema.parse((await call('GET', base())).json());
    expect(listed.jobs.every((job) => typeof job.model === 'string')).toBe(true);
  });

  it('makes creates safe to retry with Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `retry-${dialect}` };
    const first = await call('POST', base(), { prompt: 'Once only', draft: true }, headers);
    const second = await call('POST', base(), { draft: true, prompt: 'Once only' }, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json().id).toBe(first.json().id);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const different = await call('POST', base(), { prompt: 'Something else' }, headers);
    expect(different.statusCode).toBe(422);
    expect(different.json().code).toBe('idempotency_mismatch');
  });

  it('serves the OpenAPI 3.1 document generated from the schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v2/agent/{projectId}/job', '/v2/agent/{projectId}/job/{jobId}/events']),
    );
    const create = document.paths['/v2/agent/{projectId}/job'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['prompt']);
    expect(create.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
  });

  it('answers health and readiness', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ready',
      ready: true,
    });
  });
});
