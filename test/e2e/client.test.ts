import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentJobsError, createClient, type Job, type JobEvent } from '../../src/client/index.js';
import { type FaultyProxy, startFaultyProxy } from '../support/faulty-proxy.js';
import { makeGate } from '../support/gate.js';
import { runCli, type ServerProcess } from '../support/processes.js';
import { heldUntil, type ScriptedModelServer } from '../support/scripted-model.js';
import { type ScriptedServer, scriptedServer } from '../support/scripted-server.js';

// The typed client against the built server over real HTTP, directly and through a proxy that
// refuses with 429/503 and cuts event streams. The client is what users import: its source here,
// and test/client-package.test.ts checks the built package.
describe('the typed client against the built server', () => {
  let scripted: ScriptedServer;
  let model: ScriptedModelServer;
  let server: ServerProcess;
  let proxy: FaultyProxy;
  let projectId: string;
  let key: string;
  const done = () => ({ text: 'Done\n\nNothing needed changing.' });

  beforeAll(async () => {
    scripted = await scriptedServer({
      name: 'client-e2e',
      dialect: 'sqlite',
      // Every job that is not scripted on purpose answers at once.
      model: { script: Array.from({ length: 50 }, () => ({ answer: done })) },
      env: { AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    ({ model, server, projectId, key } = scripted);
    proxy = await startFaultyProxy(server.url);
  });

  afterAll(async () => {
    await proxy?.close();
    await scripted?.close();
  });

  const direct = () => createClient({ baseUrl: server.url, apiKey: key, projectId });
  const proxied = () =>
    createClient({ baseUrl: `${proxy.url}/`, apiKey: key, projectId, retry: { baseDelayMs: 50 } });
  const fast = { pollIntervalMs: 50, maxPollIntervalMs: 200 };

  it('creates a job, waits for it with progress, and gets it', async () => {
    const client = direct();
    const created = await client.createJob({ prompt: 'Check the README' });
    expect(created).toMatchObject({
      status: 'active',
      phase: 'queued',
      prompt: 'Check the README',
      projectId,
    });
    const seen: Job[] = [];
    const finished = await client.waitForJob(created.id, { ...fast, onProgress: (job) => seen.push(job) });
    expect(finished).toMatchObject({ id: created.id, status: 'completed', prLink: null });
    expect(seen.at(-1)).toEqual(finished);
    expect(await client.getJob(created.id)).toEqual(finished);
  });

  it('sends a follow-up and archives; a follow-up to an archived job is a typed 409', async () => {
    const client = direct();
    const job = await client.waitForJob((await client.createJob({ prompt: 'First' })).id, fast);
    const resumed = await client.sendMessage(job.id, 'And a second thing');
    expect(resumed.status).toBe('active');
    expect((await client.waitForJob(job.id, fast)).status).toBe('completed');
    const archived = await client.archiveJob(job.id);
    expect(archived).toMatchObject({ status: 'archived', archivedAt: expect.any(String) });
    expect(await client.archiveJob(job.id)).toEqual(archived);
    const error = await client.sendMessage(job.id, 'Too late').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentJobsError);
    expect(error).toMatchObject({ status: 409, code: 'job_archived', requestId: expect.any(String) });
  });

  it('lists jobs page by page with an async iterator', async () => {
    const client = direct();
    const made = [];
    for (const prompt of ['Page one', 'Page two', 'Page three'])
      made.push(await client.createJob({ prompt }));
    const pages = [];
    for await (const page of client.listJobs({ limit: 2 })) pages.push(page);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.slice(0, -1).every((page) => page.jobs.length === 2 && page.nextCursor)).toBe(true);
    expect(pages.at(-1)?.nextCursor).toBeNull();
    const ids = pages.flatMap((page) => page.jobs.map((job) => job.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 3)).toEqual(made.map((job) => job.id).reverse());
    for (const job of made) await client.waitForJob(job.id, fast);
  });

  it('answers errors as AgentJobsError with status, code and request id', async () => {
    const missing = await direct()
      .getJob('01ARZ3NDEKTSV4RRFFQ69G5FAV')
      .catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ name: 'AgentJobsError', status: 404, code: 'job_not_found' });
    const stranger = createClient({ baseUrl: server.url, apiKey: `${key.slice(0, -3)}xyz`, projectId });
    const refused = await stranger.getJob('01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized', requestId: expect.any(String) });
    expect(String(refused)).not.toContain(key);
    const nowhere = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: key,
      projectId,
      retry: { retries: 0 },
    });
    expect(
      await nowhere.getJob('01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((caught: unknown) => caught),
    ).toMatchObject({
      status: 0,
      code: 'unreachable',
      retryable: true,
    });
  });

  it('waits for a job through a 429 and a 503, honouring Retry-After', async () => {
    const client = proxied();
    const created = await client.createJob({ prompt: 'Through a flaky proxy' });
    const jobPath = new RegExp(`/job/${created.id}$`);
    proxy.refuseNext('GET', jobPath, [
      { status: 429, retryAfter: 1 },
      { status: 503, retryAfter: 1 },
    ]);
    const startedAt = Date.now();
    const finished = await client.waitForJob(created.id, fast);
    expect(finished.status).toBe('completed');
    const answers = proxy.requests.filter((r) => jobPath.test(r.path)).map((r) => r.answer);
    expect(answers.slice(0, 3)).toEqual([429, 503, 200]);
    // Both waits were the server's Retry-After, not the client's 50 ms backoff.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
  });

  it('retries a create whose answer was lost with the same idempotency key: one job', async () => {
    const client = proxied();
    const prompt = `Exactly once ${Date.now()}`;
    proxy.refuseNext('POST', /\/job$/, [{ status: 503, retryAfter: 0, forward: true }]);
    const job = await client.createJob({ prompt });
    const creates = proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job')).slice(-2);
    expect(creates.map((r) => r.answer)).toEqual([503, 201]);
    expect(creates[0]?.headers['idempotency-key']).toBeTruthy();
    expect(creates[1]?.headers['idempotency-key']).toBe(creates[0]?.headers['idempotency-key']);
    const all = [];
    for await (const page of client.listJobs({ limit: 100 })) all.push(...page.jobs);
    expect(all.filter((other) => other.prompt === prompt).map((other) => other.id)).toEqual([job.id]);
    await client.waitForJob(job.id, fast);
  });

  it('streams events across a dropped connection with none lost or repeated', async () => {
    const client = proxied();
    const { opened: gate, open: release } = makeGate();
    model.setScript([
      { toolCalls: [{ name: 'read_file', input: { path: 'README.md' } }] },
      heldUntil(gate, { toolCalls: [{ name: 'list_files', input: {} }] }),
      { text: 'Looked around\n\nAll good.' },
      ...Array.from({ length: 50 }, () => ({ answer: done })),
    ]);
    const created = await client.createJob({ prompt: 'Look around' });
    const eventsPath = new RegExp(`/job/${created.id}/events`);
    proxy.cutNextStream(eventsPath, 2);
    const received: JobEvent[] = [];
    for await (const event of client.streamEvents(created.id)) {
      received.push(event);
      // Let the job go on only once the stream was cut and opened again.
      const streams = proxy.requests.filter((r) => eventsPath.test(r.path));
      if (streams.length >= 2) release();
    }
    const streams = proxy.requests.filter((r) => eventsPath.test(r.path));
    expect(streams[0]?.answer).toBe('cut');
    expect(streams[1]?.headers['last-event-id']).toMatch(/^\d+$/);

    const all = (await client.getEvents(created.id, { limit: 1000 })).events;
    expect(received.map((event) => event.seq)).toEqual(all.map((event) => event.seq));
    expect(received.at(-1)).toMatchObject({
      type: 'status',
      data: expect.objectContaining({ status: 'completed' }),
    });
    expect((await client.getJob(created.id)).status).toBe('completed');
  });

  it('streams the events of a finished job and ends; after= starts later', async () => {
    const client = direct();
    const job = await client.waitForJob((await client.createJob({ prompt: 'Short' })).id, fast);
    const events: JobEvent[] = [];
    for await (const event of client.streamEvents(job.id)) events.push(event);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const after = [];
    for await (const event of client.streamEvents(job.id, { after: events.length - 1 })) after.push(event);
    expect(after).toEqual(events.slice(-1));
  });

  it('takes JSON sent with a charset, as many HTTP clients send it, for a create and a follow-up', async () => {
    const send = (path: string, body: unknown) =>
      fetch(`${server.url}/v2/agent/${projectId}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
      });
    const created = await send('/job', { prompt: 'With a charset' });
    expect(created.status).toBe(201);
    const job = (await created.json()) as Job;
    await direct().waitForJob(job.id, fast);
    const followed = await send(`/job/${job.id}/message`, { prompt: 'Again, with a charset' });
    expect(followed.status).toBe(200);
    expect(((await followed.json()) as Job).status).toBe('active');
    await direct().waitForJob(job.id, fast);
  });

  it('follows a job from the CLI: job events --follow --json prints JSON lines until the job ends', async () => {
    const client = direct();
    const { opened: gate, open: release } = makeGate();
    model.setScript([
      heldUntil(gate, { text: 'Followed\n\nDone.' }),
      ...Array.from({ length: 50 }, () => ({ answer: done })),
    ]);
    const created = await client.createJob({ prompt: 'Follow me' });
    // Through the proxy, to see when the CLI's stream is open: then the job may end.
    const env = { AGENTJOBS_URL: proxy.url, AGENTJOBS_API_KEY: key, AGENTJOBS_PROJECT: projectId };
    const following = runCli(['job', 'events', created.id, '--follow', '--json'], env);
    const streaming = () =>
      proxy.requests.some((r) => r.path.includes(`/job/${created.id}/events`) && r.answer === 200);
    while (!streaming()) await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const followed = await following;
    expect(followed.code, followed.stderr).toBe(0);
    const lines = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JobEvent);
    expect(lines.map((event) => event.seq)).toEqual(lines.map((_, index) => index + 1));
    expect(lines.at(-1)).toMatchObject({
      type: 'status',
      data: expect.objectContaining({ status: 'completed' }),
    });

    const page = await runCli(['job', 'events', created.id, '--after', '1'], env);
    expect(page.code, page.stderr).toBe(0);
    const shown = page.stdout.trimEnd().split('\n');
    expect(shown).toHaveLength(lines.length - 1);
    expect(shown[0]).toMatch(/^\s+2\s+\d\d:\d\d:\d\d\s+\w+/);

    const missing = await runCli(['job', 'get', '01ARZ3NDEKTSV4RRFFQ69G5FAV'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(job_not_found)');
  });

  it('manages webhook endpoints (once the server has the webhook routes)', async (context) => {
    const document = (await (await fetch(`${server.url}/v2/openapi.json`)).json()) as { paths: object };
    if (!(`/v2/agent/{projectId}/webhooks` in document.paths)) return context.skip();
    const client = direct();
    const made = await client.createWebhook({ url: 'http://127.0.0.1:9/hook', events: ['job.completed'] });
    expect(made.secret).toMatch(/^whsec_/);
    expect((await client.listWebhooks()).map((webhook) => webhook.id)).toContain(made.id);
    expect(await client.getWebhook(made.id)).toMatchObject({ id: made.id, url: 'http://127.0.0.1:9/hook' });
    expect(await client.updateWebhook(made.id, { enabled: false })).toMatchObject({ enabled: false });
    const rotated = await client.rotateWebhookSecret(made.id);
    expect(rotated.secret).not.toBe(made.secret);
    const pages = [];
    for await (const page of client.listDeliveries(made.id)) pages.push(page);
    expect(pages[0]?.deliveries).toEqual(expect.any(Array));
    await client.deleteWebhook(made.id);
    expect(await client.getWebhook(made.id).catch((caught: unknown) => caught)).toMatchObject({
      status: 404,
    });
  });
});
