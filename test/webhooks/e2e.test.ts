import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { WebhookDelivery } from '../../src/domain/webhook.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { committedRepo, createProjectAndKey, jobApi } from '../support/e2e.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { eventually, type Receiver, startReceiver } from '../support/webhook-receiver.js';

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function localRepository(dir: string): string {
  const repo = path.join(dir, 'docs');
  committedRepo(repo);
  return repo;
}

const LIFE = ['job.created', 'job.completed', 'job.resumed', 'job.completed', 'job.archived'];

// The built server over real HTTP, receivers written with the standardwebhooks package.
describe.each(testDialects())('webhooks end to end on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let model: ScriptedModelServer;
  let env: Record<string, string>;
  let repo: string;
  const receivers: Receiver[] = [];
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-webhooks-e2e-'));
    repo = localRepository(dir);
    database = await createTestDatabase(dialect);
    model = await startScriptedModel();
    env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true',
      AGENTJOBS_WEBHOOK_RETRY_DELAYS: '300ms,300ms,500ms,1s,1s,2s,2s,3s,3s,3s,3s,3s,3s,3s,3s',
      AGENTJOBS_WEBHOOK_TIMEOUT: '2s',
      AGENTJOBS_POLL_SECONDS: '1',
    };
  });
  afterAll(async () => {
    for (const server of servers) server.kill();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const serve = async () => {
    const server = await startServerProcess(env);
    servers.push(server);
    return server;
  };
  const hookApi = (server: () => ServerProcess, projectId: string, key: string) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const base = () => `${server().url}/v2/agent/${projectId}/webhooks`;
    return {
      create: async (url: string) => {
        const response = await fetch(base(), { method: 'POST', headers, body: JSON.stringify({ url }) });
        expect(response.status).toBe(201);
        return (await response.json()) as { id: string; secret: string };
      },
      deliveries: async (webhookId: string) => {
        const response = await fetch(`${base()}/${webhookId}/deliveries?limit=100`, { headers });
        return ((await response.json()) as { deliveries: WebhookDelivery[] }).deliveries;
      },
    };
  };

  it("verifies every delivery of a job's life, through a refused first attempt and a receiver not listening at first", async () => {
    const server = await serve();
    const { projectId, key } = await createProjectAndKey(env, repo);
    const hooks = hookApi(() => server, projectId, key);

    // A refuses the first attempt of every event; B is not listening yet.
    const refusing = await startReceiver();
    receivers.push(refusing);
    const seen = new Set<string>();
    refusing.answer = (request, response) => {
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) return void response.writeHead(200).end('ok');
      seen.add(id);
      response.writeHead(503).end('not now');
    };
    const latePort = await freePort();
    const a = await hooks.create(refusing.url);
    const b = await hooks.create(`http://127.0.0.1:${latePort}/hook`);
    refusing.secrets = [a.secret];

    const { call, waitUntil } = jobApi(() => ({ url: server.url, projectId, key }));
    const done = (job: Job) => job.status !== 'active';
    model.setScript([{ text: 'Nothing needed changing.' }]);
    const created = await call('POST', '/job', { prompt: 'Check the docs' });
    expect(created.status).toBe(201);
    const jobId = created.job.id;
    expect(await waitUntil(jobId, done)).toMatchObject({ status: 'completed' });
    model.setScript([{ text: 'Still nothing to change.' }]);
    expect((await call('POST', `/job/${jobId}/message`, { prompt: 'Look again' })).status).toBe(200);
    expect(await waitUntil(jobId, done)).toMatchObject({ status: 'completed' });
    expect((await call('POST', `/job/${jobId}/archive`)).status).toBe(200);

    // B has refused every event at least once before it starts listening.
    await eventually(async () => {
      const list = await hooks.deliveries(b.id);
      return list.length === LIFE.length && list.every((d) => d.attempts.length >= 1);
    });

    // A: every event verified, each after one refused attempt.
    const verifiedTypes = (receiver: Receiver) =>
      receiver.received.flatMap((r) => (r.verified ? [r.verified] : []));
    const deliveredToA = await eventually(async () => {
      const list = await hooks.deliveries(a.id);
      return list.length === LIFE.length && list.every((d) => d.status === 'succeeded') ? list : undefined;
    });
    expect(deliveredToA.map((d) => d.event.type).reverse()).toEqual(LIFE);
    for (const delivery of deliveredToA) {
      expect(delivery.attempts.map((attempt) => attempt.responseStatus)).toEqual([503, 200]);
      expect(delivery.attempts[0]?.responseExcerpt).toBe('not now');
    }

    // B starts listening: every event arrives, verified, after refused connections.
    const late = await startReceiver({ port: latePort, secrets: [b.secret] });
    receivers.push(late);
    const deliveredToB = await eventually(async () => {
      const list = await hooks.deliveries(b.id);
      return list.length === LIFE.length && list.every((d) => d.status === 'succeeded') ? list : undefined;
    }, 30_000);
    for (const delivery of deliveredToB) {
      expect(delivery.attempts[0]).toMatchObject({
        responseStatus: null,
        error: 'The connection was refused.',
      });
      expect(delivery.attempts.at(-1)).toMatchObject({ responseStatus: 204, error: null });
    }
    const got = verifiedTypes(late);
    expect(late.received.every((r) => r.verified !== null)).toBe(true);
    expect(new Set(late.received.map((r) => r.headers['webhook-id'])).size).toBe(LIFE.length);
    const byType = (type: string) => got.filter((payload) => payload.type === type).map((p) => p.data.job);
    expect(byType('job.created')).toEqual([expect.objectContaining({ id: jobId, status: 'active' })]);
    // Retries run side by side, so events may arrive out of order (receivers order by the job's
    // updatedAt or refetch it); each is the job as it was when its event happened.
    expect(byType('job.completed')).toHaveLength(2);
    expect(byType('job.completed')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'completed', summary: 'Nothing needed changing.' }),
        expect.objectContaining({ status: 'completed', summary: 'Still nothing to change.' }),
      ]),
    );
    // The payload is the job as the API shows it, its cost included (null: the model has no price).
    for (const job of byType('job.completed'))
      expect(job.usage).toMatchObject({ cachedInputTokens: expect.any(Number), costUsd: null });
    expect(byType('job.resumed')).toEqual([expect.objectContaining({ status: 'active', phase: 'queued' })]);
    expect(byType('job.archived')).toEqual([
      expect.objectContaining({ status: 'archived', archivedAt: expect.any(String) }),
    ]);
    // Secrets reach no log line.
    for (const secret of [a.secret, b.secret]) expect(server.output.join('\n')).not.toContain(secret);
    await server.stop();
  }, 120_000);

  it('delivers an event after the delivering process is killed with SIGKILL mid-send', async () => {
    const first = await serve();
    const { projectId, key } = await createProjectAndKey(env, repo);
    const receiver = await startReceiver();
    receivers.push(receiver);
    // The first request is held: the process is killed while it waits for the answer.
    let holding = true;
    receiver.answer = (_request, response) => {
      if (!holding) response.writeHead(204).end();
    };
    let current = first;
    const hooks = hookApi(() => current, projectId, key);
    const hook = await hooks.create(receiver.url);
    receiver.secrets = [hook.secret];
    model.setScript([]);
    const created = await fetch(`${first.url}/v2/agent/${projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Anything' }),
    });
    const job = (await created.json()) as Job;
    await eventually(() => receiver.received.length >= 1);
    await first.stop('SIGKILL');
    holding = false;

    current = await serve();
    const [delivery] = await eventually(async () => {
      const list = await hooks.deliveries(hook.id);
      const createdEvent = list.filter((d) => d.event.type === 'job.created');
      return createdEvent.length === 1 && createdEvent[0]?.status === 'succeeded' ? createdEvent : undefined;
    }, 45_000);
    const sameEvent = receiver.received.filter((r) => r.headers['webhook-id'] === delivery?.event.id);
    // Once or more, never lost: the held attempt, then the one after the restart, verified.
    expect(sameEvent.length).toBeGreaterThanOrEqual(2);
    expect(sameEvent.at(-1)?.verified).toMatchObject({ type: 'job.created', data: { job: { id: job.id } } });
    await current.stop();
  }, 120_000);

  it('manages endpoints with the CLI: create, list, deliveries, redeliver, delete (--json)', async () => {
    const server = await serve();
    const { projectId, key } = await createProjectAndKey(env, repo);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const cliEnv = { AGENTJOBS_URL: server.url, AGENTJOBS_API_KEY: key, AGENTJOBS_PROJECT: projectId };
    const cli = async (...args: string[]) => {
      const result = await runCli(['webhook', ...args, '--json'], cliEnv);
      expect(result.code, result.stderr + result.stdout).toBe(0);
      return JSON.parse(result.stdout);
    };
    const created = await cli('create', '--url', receiver.url, '--events', 'job.created,job.archived');
    expect(created).toMatchObject({ url: receiver.url, events: ['job.created', 'job.archived'] });
    expect(created.secret).toMatch(/^whsec_/);
    receiver.secrets = [created.secret];
    const listed = await cli('list');
    expect(listed.webhooks).toEqual([expect.objectContaining({ id: created.id, enabled: true })]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    model.setScript([{ text: 'Done.' }]);
    const { call } = jobApi(() => ({ url: server.url, projectId, key }));
    await call('POST', '/job', { prompt: 'Anything' });
    const [delivery] = await eventually(async () => {
      const page = await cli('deliveries', created.id);
      return page.deliveries.length === 1 && page.deliveries[0].status === 'succeeded'
        ? page.deliveries
        : undefined;
    });
    const again = await cli('redeliver', created.id, delivery.id);
    expect(again).toMatchObject({ id: delivery.id, status: 'pending' });
    await eventually(() => receiver.received.filter((r) => r.verified).length === 2);

    const refused = await runCli(['webhook', 'create', '--url', 'http://169.254.169.254/', '--json'], cliEnv);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 'webhook_url_not_allowed' });
    // The same sentence as the API and the dashboard, for a form that carries the metadata address.
    const nat64 = await runCli(['webhook', 'create', '--url', 'http://[64:ff9b::a9fe:a9fe]/'], cliEnv);
    expect(nat64.code).toBe(1);
    expect(nat64.stderr).toBe(
      'agentjobs: The URL is not allowed: 64:ff9b::a9fe:a9fe is a NAT64 address for 169.254.169.254, a metadata address. (webhook_url_not_allowed)\n',
    );
    const badEvents = await runCli(
      ['webhook', 'create', '--url', receiver.url, '--events', 'job.boom'],
      cliEnv,
    );
    expect(badEvents.code).toBe(1);
    expect(badEvents.stderr).toContain('unknown: job.boom');

    expect(await cli('delete', created.id)).toEqual({ deleted: created.id });
    expect((await cli('list')).webhooks).toEqual([]);
    await server.stop();
  }, 120_000);
});
