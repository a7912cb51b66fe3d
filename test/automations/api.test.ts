import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { automationRunSchema, automationSchema } from '../../src/api/automation-schemas.js';
import { errorSchema, jobSchema } from '../../src/api/schemas.js';
import type { Job } from '../../src/domain/job.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const base = (t: TestApp) => `/v2/agent/${t.project.id}/automations`;

async function send(
  t: TestApp,
  method: 'POST' | 'PATCH' | 'GET' | 'DELETE',
  url: string,
  body?: unknown,
  key = t.key,
) {
  return t.app.inject({
    method,
    url,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const manual = (extra: Record<string, unknown> = {}) => ({
  name: 'Sweep',
  trigger: { type: 'manual' },
  prompt: 'Update {{variables.page}} please.',
  ...extra,
});

async function create(t: TestApp, body: Record<string, unknown>) {
  const response = await send(t, 'POST', base(t), body);
  expect(response.statusCode, response.body).toBe(201);
  return automationSchema.parse(response.json());
}

const trigger = (t: TestApp, id: string, body?: unknown) =>
  send(t, 'POST', `${base(t)}/${id}/trigger`, body ?? {});
const runsOf = async (t: TestApp, id: string, query = '') => {
  const response = await send(t, 'GET', `${base(t)}/${id}/runs${query}`);
  expect(response.statusCode).toBe(200);
  return response.json() as { runs: unknown[]; nextCursor: string | null };
};

describe.each(testDialects())('automations over the API, on %s', (dialect) => {
  let t: TestApp;
  const openPullRequests = new Set<string>();
  // Each test that counts a project's runs or spends its budget gets a project of its own.
  const appWith = (env: Record<string, string> = {}) =>
    startTestApp(dialect, env, t.database, {
      automations: {
        contextRepositoryNames: async () => ['product'],
        pullRequestOpen: async (job: Job) => openPullRequests.has(job.id),
      },
    });
  const others: TestApp[] = [];

  beforeAll(async () => {
    t = await startTestApp(dialect, {}, undefined, {
      automations: {
        contextRepositoryNames: async () => ['product', 'sdk'],
        pullRequestOpen: async (job: Job) => openPullRequests.has(job.id),
      },
    });
  });
  afterAll(async () => {
    for (const other of others) await other.close();
    await t?.close();
  });

  it.each([
    ['a cron with six fields', { trigger: { type: 'schedule', cron: '0 0 9 * * 1' } }, 'body.trigger.cron'],
    ['a cron out of range', { trigger: { type: 'schedule', cron: '0 25 * * *' } }, 'body.trigger.cron'],
    [
      'an unknown timezone',
      { trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Nowhere/City' } },
      'body.trigger.timezone',
    ],
    ['an unknown placeholder', { prompt: 'Look at {{change.secret}}' }, 'body.prompt'],
    ['a section in the template', { prompt: '{{#comment.body}}x{{/comment.body}}' }, 'body.prompt'],
    [
      'an unknown context repository',
      { trigger: { type: 'code_change', repository: 'nope', branch: 'main' } },
      'body.trigger.repository',
    ],
    ['a bad branch', { trigger: { type: 'content_change', branch: 'a..b' } }, 'body.trigger.branch'],
    ['a bad base branch', { baseRef: 'main branch' }, 'body.baseRef'],
  ])('refuses %s with 422 naming the field', async (_name, change, path) => {
    const response = await send(t, 'POST', base(t), { ...manual({ name: 'refused' }), ...change });
    expect(response.statusCode, response.body).toBe(422);
    const body = errorSchema.parse(response.json());
    expect(body.code).toBe('invalid_automation');
    expect(body.details?.[0]?.path).toBe(path);
    const list = await send(t, 'GET', base(t));
    expect(
      (list.json() as { automations: unknown[] }).automations.map((a) => (a as { name: string }).name),
    ).not.toContain('refused');
  });

  it('refuses unknown fields and a missing trigger with 400, and a read key with 403', async () => {
    expect((await send(t, 'POST', base(t), { ...manual(), color: 'red' })).statusCode).toBe(400);
    expect((await send(t, 'POST', base(t), { name: 'x', prompt: 'y' })).statusCode).toBe(400);
    const reader = await t.makeKey({ scopes: ['read'] });
    expect((await send(t, 'POST', base(t), manual(), reader)).statusCode).toBe(403);
    expect((await send(t, 'GET', base(t), undefined, reader)).statusCode).toBe(200);
  });

  it('creates with the defaults, lists, reads, changes and deletes', async () => {
    const created = await create(t, {
      name: 'Weekly',
      trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
      prompt: 'Sweep at {{schedule.time}}',
    });
    expect(created).toMatchObject({
      enabled: true,
      group: true,
      draft: false,
      model: null,
      baseRef: null,
      allowedAuthors: [],
      lastRunAt: null,
      trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
    });
    expect(Date.parse(created.nextRunAt ?? '')).toBeGreaterThan(Date.now());
    const list = (await send(t, 'GET', base(t))).json() as { automations: { id: string }[] };
    expect(list.automations.map((automation) => automation.id)).toContain(created.id);
    expect((await send(t, 'GET', `${base(t)}/${created.id}`)).json()).toEqual(created);

    const disabled = await send(t, 'PATCH', `${base(t)}/${created.id}`, {
      enabled: false,
      name: 'Weekly sweep',
    });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({ enabled: false, name: 'Weekly sweep', nextRunAt: null });
    const badPatch = await send(t, 'PATCH', `${base(t)}/${created.id}`, {
      trigger: { type: 'schedule', cron: 'x' },
    });
    expect(badPatch.statusCode).toBe(422);
    expect((await send(t, 'GET', `${base(t)}/${created.id}`)).json()).toMatchObject({ name: 'Weekly sweep' });

    expect((await send(t, 'DELETE', `${base(t)}/${created.id}`)).statusCode).toBe(204);
    expect((await send(t, 'GET', `${base(t)}/${created.id}`)).json()).toMatchObject({
      code: 'automation_not_found',
    });
    expect((await send(t, 'DELETE', `${base(t)}/${created.id}`)).statusCode).toBe(404);
  });

  it("answers 404 for another project's automation", async () => {
    const other = await appWith();
    others.push(other);
    const theirs = await create(other, manual());
    const response = await send(t, 'GET', `${base(t)}/${theirs.id}`);
    expect(response.statusCode).toBe(404);
    expect((await trigger(t, theirs.id)).statusCode).toBe(404);
  });

  it('runs on demand: a job with the rendered prompt and its trigger; then groups into it while it is open', async () => {
    const automation = await create(t, manual({ name: 'Grouped' }));
    const first = await trigger(t, automation.id, { variables: { page: 'the quickstart' } });
    expect(first.statusCode, first.body).toBe(201);
    const job = jobSchema.parse(first.json());
    expect(job.prompt).toBe('Update the quickstart please.');
    expect(job.trigger).toEqual({ type: 'manual', automationId: automation.id, source: 'manual' });
    const read = await send(t, 'GET', `/v2/agent/${t.project.id}/job/${job.id}`);
    expect(read.json()).toMatchObject({ trigger: { automationId: automation.id } });

    // Still active: the next run joins it rather than opening a second pull request.
    const second = await trigger(t, automation.id, { variables: { page: 'the FAQ' } });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ id: job.id });

    // Completed with its pull request open: grouped; once the pull request is gone, a new job.
    await t.database.db.kysely
      .updateTable('jobs')
      .set({ status: 'completed', phase: null, pr_link: 'https://example.com/pr/1' })
      .where('id', '=', job.id)
      .execute();
    openPullRequests.add(job.id);
    const third = await trigger(t, automation.id);
    expect(third.statusCode).toBe(200);
    expect(third.json()).toMatchObject({ id: job.id, status: 'active' });
    await t.database.db.kysely
      .updateTable('jobs')
      .set({ status: 'completed', phase: null })
      .where('id', '=', job.id)
      .execute();
    openPullRequests.delete(job.id);
    const fourth = await trigger(t, automation.id);
    expect(fourth.statusCode).toBe(201);
    expect(fourth.json()).not.toMatchObject({ id: job.id });

    const { runs } = await runsOf(t, automation.id);
    expect(runs.map((run) => automationRunSchema.parse(run).outcome)).toEqual([
      'created',
      'grouped',
      'grouped',
      'created',
    ]);
    const updated = (await send(t, 'GET', `${base(t)}/${automation.id}`)).json() as {
      lastRunAt: string | null;
    };
    expect(updated.lastRunAt).not.toBeNull();
  });

  it('does not group with group: false, and does not spend the hourly budget', async () => {
    const other = await appWith({ AGENTJOBS_RATE_LIMIT_PER_HOUR: '1' });
    others.push(other);
    const automation = await create(other, manual({ group: false }));
    const first = await trigger(other, automation.id);
    const second = await trigger(other, automation.id);
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(first.json()).not.toMatchObject({ id: (second.json() as { id: string }).id });
    const api = await send(other, 'POST', `/v2/agent/${other.project.id}/job`, { prompt: 'by hand' });
    expect(api.statusCode, api.body).toBe(201);
    expect(api.json()).toMatchObject({ trigger: null });
  });

  it('skips a disabled automation with 409, recorded with its reason', async () => {
    const automation = await create(t, manual({ enabled: false }));
    const response = await trigger(t, automation.id);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'automation_disabled' });
    const { runs } = await runsOf(t, automation.id);
    expect(runs).toEqual([expect.objectContaining({ outcome: 'skipped', reason: 'disabled', jobId: null })]);
  });

  it("skips runs past the day's limit with 429 and Retry-After", async () => {
    const other = await appWith({ AGENTJOBS_AUTOMATION_RUNS_PER_DAY: '2' });
    others.push(other);
    const automation = await create(other, manual({ group: false }));
    expect((await trigger(other, automation.id)).statusCode).toBe(201);
    expect((await trigger(other, automation.id)).statusCode).toBe(201);
    const over = await trigger(other, automation.id);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: 'automation_limit_exceeded' });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60);
    const { runs } = await runsOf(other, automation.id);
    expect(runs[0]).toMatchObject({ outcome: 'skipped', reason: 'limit' });
  });

  it('skips a run over the daily cost budget with 429 budget_exceeded', async () => {
    const other = await appWith();
    others.push(other);
    await other.store.projects.update(other.project.id, { dailyBudgetUsd: 0 });
    const automation = await create(other, manual());
    const response = await trigger(other, automation.id);
    expect(response.statusCode).toBe(429);
    expect(response.json()).toMatchObject({ code: 'budget_exceeded' });
    const { runs } = await runsOf(other, automation.id);
    expect(runs).toEqual([expect.objectContaining({ outcome: 'skipped', reason: 'budget_exceeded' })]);
  });

  it('pages the runs, newest first', async () => {
    const automation = await create(t, manual({ enabled: false }));
    for (let index = 0; index < 3; index++) await trigger(t, automation.id);
    const first = await runsOf(t, automation.id, '?limit=2');
    expect(first.runs).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await runsOf(t, automation.id, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.runs).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.runs, ...second.runs].map((run) => (run as { id: string }).id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect((await send(t, 'GET', `${base(t)}/${automation.id}/runs?cursor=%%%`)).statusCode).toBe(400);
  });

  it('sends the webhook event automation.run for every run, a skipped one too', async () => {
    const other = await appWith();
    others.push(other);
    await other.store.webhooks.create(
      {
        projectId: other.project.id,
        url: 'http://127.0.0.1:9/hook',
        events: ['automation.run'],
        description: '',
      },
      other.secrets(),
    );
    const enabled = await create(other, manual({ name: 'On', group: false }));
    const disabled = await create(other, manual({ name: 'Off', enabled: false }));
    const job = jobSchema.parse((await trigger(other, enabled.id)).json());
    expect((await trigger(other, disabled.id)).statusCode).toBe(409);
    const rows = await other.database.db.kysely
      .selectFrom('webhook_events')
      .selectAll()
      .where('project_id', '=', other.project.id)
      .orderBy('id')
      .execute();
    expect(rows.map((row) => row.type)).toEqual(['automation.run', 'automation.run']);
    const [created, skipped] = rows.map((row) => JSON.parse(row.payload));
    expect(created).toMatchObject({
      type: 'automation.run',
      data: {
        run: { outcome: 'created', jobId: job.id, automationId: enabled.id },
        automation: { id: enabled.id, name: 'On' },
        job: { id: job.id, trigger: { automationId: enabled.id } },
      },
    });
    expect(skipped).toMatchObject({
      data: { run: { outcome: 'skipped', reason: 'disabled' }, automation: { id: disabled.id }, job: null },
    });
  });
});
