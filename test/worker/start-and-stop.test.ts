import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { type Role, type RunningProcess, startProcess } from '../../src/server.js';
import { openDb } from '../../src/store/db.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { openConnections } from '../support/leaks.js';
import {
  fakeAgent,
  fakeResolveModel,
  makeRepo,
  sleep,
  tempDir,
  untilAborted,
  waitFor,
} from '../support/worker.js';

/** What keeps a process alive or holds a port: timers, listening and connected sockets. */
const HANDLES = ['Timeout', 'TCPServerWrap', 'TCPSocketWrap'];
const handles = () =>
  Object.fromEntries(
    HANDLES.map((kind) => [kind, process.getActiveResourcesInfo().filter((each) => each === kind).length]),
  );

/** Waits (a little) for handles being closed to go, then returns them. */
async function settledHandles(before: Record<string, number>) {
  const deadline = Date.now() + 3000;
  let now = handles();
  while (HANDLES.some((kind) => (now[kind] ?? 0) > (before[kind] ?? 0)) && Date.now() < deadline) {
    await sleep(50);
    now = handles();
  }
  return now;
}

/** A port something else listens on: a start that needs it fails. */
async function takenPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Whether something listens on `port`. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const agent = { runAgent: fakeAgent().runAgent, resolveModel: fakeResolveModel };

describe.each(testDialects())('a process whose start fails on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  beforeAll(async () => {
    dir = tempDir('start-fails');
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const configFor = (dataDir: string, env: Record<string, string> = {}) =>
    loadConfig({
      AGENTJOBS_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      AGENTJOBS_ADMIN_PASSWORD: 'a-long-enough-admin-password',
      AGENTJOBS_DRAIN_SECONDS: '0',
      ...env,
    });

  /** Asserts that nothing the start made is left: no timer, socket or database connection. */
  async function expectNothingLeft(before: Record<string, number>) {
    const after = await settledHandles(before);
    for (const kind of HANDLES) expect(after[kind], kind).toBeLessThanOrEqual(before[kind] ?? 0);
    const postgresUrl = inject('postgresUrl');
    if (dialect === 'postgres' && postgresUrl && process.env.PGAPPNAME)
      expect(await openConnections(postgresUrl, process.env.PGAPPNAME)).toEqual([]);
  }

  it('serve: the worker cannot start after the HTTP server listens; the port and the database are closed', async () => {
    const dataDir = path.join(dir, 'serve');
    fs.mkdirSync(dataDir, { recursive: true });
    // Where the worker names itself is a file: its start fails, after the database, the loops and the port.
    fs.writeFileSync(path.join(dataDir, 'workers'), '');
    // A free port, known before the start, to see it closed after.
    const free = await takenPort();
    await free.close();
    const port = free.port;
    const before = handles();
    await expect(
      startProcess(configFor(dataDir, { PORT: String(port) }), 'serve', { agent }),
    ).rejects.toThrow(/EEXIST|ENOTDIR|file already exists/);
    expect(await listening(port)).toBe(false);
    await expectNothingLeft(before);
  });

  it('worker: its health port is taken; what started before it is stopped', async () => {
    const taken = await takenPort();
    try {
      const before = handles();
      const config = configFor(path.join(dir, 'worker'), { AGENTJOBS_HEALTH_PORT: String(taken.port) });
      await expect(startProcess(config, 'worker', { agent })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await expectNothingLeft(before);
    } finally {
      await taken.close();
    }
  });

  it('starts and stops cleanly when nothing fails', async () => {
    const before = handles();
    const running: RunningProcess = await startProcess(configFor(path.join(dir, 'clean')), 'serve' as Role, {
      agent,
    });
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    await running.stop();
    await expectNothingLeft(before);
  });
});

// Liveness that can fail: a worker whose lease heartbeat is stuck (here on a row lock another
// transaction holds, as a database that never answers would hold it) answers /healthz with 503.
describe.runIf(testDialects().includes('postgres'))('a worker whose heartbeat is stuck', () => {
  let dir: string;
  let database: TestDatabase;
  let running: RunningProcess | undefined;
  beforeAll(async () => {
    dir = tempDir('heartbeat-stall');
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await running?.stop();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fails its liveness after three missed beats, and recovers once the heartbeat runs again', async () => {
    const { repo } = makeRepo(dir);
    const slow = fakeAgent(async ({ signal }) => untilAborted(signal));
    const config = loadConfig({
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      AGENTJOBS_HEALTH_PORT: '0',
      // The shortest lease: a beat every 1.67 s, stuck after 5 s.
      AGENTJOBS_LEASE_SECONDS: '5',
      AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '0',
    });
    running = await startProcess(config, 'worker', {
      agent: { runAgent: slow.runAgent, resolveModel: fakeResolveModel },
    });
    const health = running.url;
    expect(health).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const store = running.store;
    const project = await store.projects.create({ name: 'Docs', repository: repo });
    const job = await store.jobs.create({
      projectId: project.id,
      prompt: 'Hold on',
      model: 'openai:fake',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    await slow.called();
    expect((await fetch(`${health}/healthz`)).status).toBe(200);

    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select id from jobs where id = $1 for update', [job.id]);
      const started = Date.now();
      const stuck = await waitFor(
        () => fetch(`${health}/healthz`),
        (response) => response.status === 503,
        { timeoutMs: 15_000, everyMs: 200 },
      );
      // Not before three beats were missed.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 1666 - 1700);
      expect(await stuck.json()).toMatchObject({ live: false, reason: 'heartbeat_stalled' });
      // Readiness is another question: the database answers.
      expect((await fetch(`${health}/readyz`)).status).toBe(200);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    await waitFor(
      () => fetch(`${health}/healthz`),
      (response) => response.status === 200,
      { timeoutMs: 15_000, everyMs: 200 },
    );
    await running.stop();
    running = undefined;
    // Handed back, not lost.
    const reader = createStore(openDb({ url: database.url, poolSize: 1 }));
    try {
      const row = await reader.db.kysely
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', job.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'active', lease_owner: null });
    } finally {
      await reader.close();
    }
  }, 60_000);
});
