import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { createProjectAndKey } from '../support/e2e.js';
import { findPostgresBin, type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { heldUntil, type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { makeRepo } from '../support/worker.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const alive = (role: ServerProcess) => role.child.exitCode === null && role.child.signalCode === null;

const bin = findPostgresBin();
const required = process.env.AGENTJOBS_REQUIRE_POSTGRES === '1';
if (!bin && !required) {
  console.log('No PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb): skipping the restart test.');
}

// A PostgreSQL restart (`pg_ctl -m fast restart`) while jobs run and creates are in flight, on a
// cluster of the test's own: the API answers 503 with Retry-After while the database is away and
// never dies; the worker keeps its runs, claims again afterwards, and every job completes once.
describe.skipIf(!bin && !required)('an API and a worker process through a PostgreSQL restart', () => {
  const JOBS = 20;
  let cluster: PostgresCluster | undefined;
  let dir: string;
  let model: ScriptedModelServer | undefined;
  let api: ServerProcess | undefined;
  let worker: ServerProcess | undefined;
  let databaseUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-pg-restart-'));
    cluster = await startPostgresCluster();
    databaseUrl = await cluster.createDatabase('agentjobs');
    // Every answer takes a while, so that runs are mid-flight when the database goes away.
    const slow = () => sleep(1500);
    model = await startScriptedModel({
      script: Array.from({ length: 400 }, (_, index) =>
        heldUntil(
          slow,
          index % 2 === 0
            ? { toolCalls: [{ name: 'write_file', input: { path: 'restart.md', content: 'survived\n' } }] }
            : { text: 'Wrote restart.md.' },
        ),
      ),
    });
    env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: databaseUrl,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_WORKER_CONCURRENCY: '8',
      AGENTJOBS_PROJECT_CONCURRENCY: '8',
      AGENTJOBS_LEASE_SECONDS: '15',
      AGENTJOBS_POLL_SECONDS: '2',
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '100000',
    };
    const migrated = await runCli(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
    api = await startServerProcess(env, 'api');
    worker = await startServerProcess(env, 'worker');
  });

  afterAll(async () => {
    api?.kill();
    worker?.kill();
    await model?.close();
    cluster?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps both processes up, answers 2xx or 503 with Retry-After, and completes every job once', async () => {
    if (!api || !worker || !model || !cluster) throw new Error('setup failed');
    const { repo } = makeRepo(dir);
    const { projectId, key } = await createProjectAndKey(env, repo);
    const base = `${api.url}/v2/agent/${projectId}`;
    const answers: { status: number; retryAfter: string | null; during: boolean }[] = [];
    let restarting = false;

    const call = async (
      method: 'GET' | 'POST',
      pathname: string,
      body?: unknown,
      idempotencyKey?: string,
    ) => {
      // A refused connection (the API died) is recorded as status 0.
      const response = await fetch(`${base}${pathname}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).catch(() => null);
      if (!response) {
        answers.push({ status: 0, retryAfter: null, during: restarting });
        return { status: 0, body: {} };
      }
      answers.push({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        during: restarting,
      });
      return { status: response.status, body: (await response.json()) as { id?: string; status?: string } };
    };

    /** Creates job `index`, retrying with its Idempotency-Key as a client told "retry later" would. */
    const create = async (index: number): Promise<string> => {
      const giveUp = Date.now() + 60_000;
      while (Date.now() < giveUp) {
        const { status, body } = await call('POST', '/job', { prompt: `Job ${index}` }, `restart-${index}`);
        if (status === 201 && body.id) return body.id;
        await sleep(250);
      }
      return `(job ${index} not created)`;
    };

    const first = Promise.all(Array.from({ length: JOBS / 2 }, (_, index) => create(index)));
    const deadline = Date.now() + 30_000;
    while (model.requests.length < 4 && Date.now() < deadline) await sleep(50);
    expect(model.requests.length).toBeGreaterThanOrEqual(4);

    // The second half of the creates and a poller race the restart.
    const firstIds = await first;
    restarting = true;
    const second = Promise.all(Array.from({ length: JOBS / 2 }, (_, index) => create(JOBS / 2 + index)));
    const polling = (async () => {
      while (restarting) {
        await Promise.all(firstIds.slice(0, 5).map((id) => call('GET', `/job/${id}`)));
        await sleep(50);
      }
    })();
    await sleep(100);
    await cluster.restart('fast');
    // Let the pools notice and reconnect before "after" begins.
    await sleep(3000);
    restarting = false;
    await polling;
    const ids = [...firstIds, ...(await second)];

    const finished = new Map<string, string>();
    const until = Date.now() + 120_000;
    while (finished.size < ids.length && Date.now() < until && alive(api)) {
      for (const id of ids.filter((id) => !finished.has(id))) {
        const { body } = await call('GET', `/job/${id}`);
        if (body.status !== 'active') finished.set(id, body.status ?? 'unknown');
      }
      await sleep(250);
    }

    expect(alive(api), `the API died:\n${api.output.slice(-20).join('\n')}`).toBe(true);
    expect(alive(worker), `the worker died:\n${worker.output.slice(-20).join('\n')}`).toBe(true);
    const unexpected = answers.filter(
      (answer) => !(answer.status < 300 || (answer.status === 503 && answer.retryAfter)),
    );
    expect(unexpected).toEqual([]);
    expect(answers.filter((answer) => !answer.during && answer.status >= 300)).toEqual([]);
    expect([...finished.values()]).toEqual(ids.map(() => 'completed'));

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const jobs = await client.query<{ id: string }>('select id from jobs');
      expect(jobs.rows.map((row) => row.id).sort()).toEqual([...ids].sort());
      const completions = await client.query<{ count: string }>(
        `select count(*) from job_events where type = 'status' and data like '%"completed"%'`,
      );
      expect(Number(completions.rows[0]?.count)).toBe(JOBS);
    } finally {
      await client.end();
    }
  }, 240_000);

  it('listens again after the restart, and wakes its listeners to look for what they missed', async () => {
    if (!cluster) throw new Error('setup failed');
    const url = await cluster.createDatabase('listen_again');
    const listening = openDb({ url });
    const notifying = openDb({ url });
    try {
      const heard: string[] = [];
      await listening.listen('restart_test', (payload) => heard.push(payload));
      await notifying.notify('restart_test', 'before');
      await waitFor(() => heard.includes('before'));

      await cluster.restart('fast');
      // The wake-up after a reconnect: a listener may have missed notifications meanwhile.
      await waitFor(() => heard.includes(''));
      await notifying.notify('restart_test', 'after');
      await waitFor(() => heard.includes('after'));
      // Heard before, the reconnect's wake-up (an empty payload), and after.
      expect(heard).toEqual(expect.arrayContaining(['before', '', 'after']));
    } finally {
      await listening.close();
      await notifying.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${condition}`);
    await sleep(50);
  }
}
