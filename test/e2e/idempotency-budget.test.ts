import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/domain/keys.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';

/**
 * The scenario: two `agentjobs api` processes on one PostgreSQL, a 20-way race on one
 * Idempotency-Key split between them, then the budget spent, then a replay of that key.
 */
describe.runIf(testDialects().includes('postgres'))('idempotent replays across two API processes', () => {
  let database: TestStore;
  let dataDir: string;
  const servers: ServerProcess[] = [];
  let projectId: string;
  let key: string;

  beforeAll(async () => {
    database = await openTestStore('postgres');
    dataDir = mkdtempSync(path.join(tmpdir(), 'agentjobs-idem-'));
    projectId = (await database.store.projects.create({ name: 'Docs', repository: '/srv/docs.git' })).id;
    key = generateKey();
    await database.store.apiKeys.create({ projectId, key, name: 'race', scopes: ['read', 'write'] });
    const env = {
      DATABASE_URL: database.url,
      AGENTJOBS_DATA_DIR: dataDir,
      AGENTJOBS_SECRET_KEY: randomBytes(32).toString('base64url'),
      AGENTJOBS_ADMIN_PASSWORD: 'idempotency test password',
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '3',
    };
    // One after the other, so that the second finds the first one's migrations done.
    servers.push(await startServerProcess(env, 'api'));
    servers.push(await startServerProcess(env, 'api'));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const create = (server: ServerProcess | undefined, prompt: string, idempotencyKey?: string) =>
    fetch(`${server?.url}/v2/agent/${projectId}/job`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: JSON.stringify({ prompt }),
    });

  it('counts a 20-way race once and answers a later replay with its job when the budget is spent', async () => {
    const raced = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(servers[i % 2], 'race', 'the-key')),
    );
    const statuses = raced.map((response) => response.status);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(','),
    ).toBe(true);
    const ids = new Set(
      await Promise.all(
        raced.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as { id: string }).id),
      ),
    );
    expect(ids.size).toBe(1);

    // The race spent one of three: two more creates pass, the next is refused.
    expect((await create(servers[0], 'second')).status).toBe(201);
    expect((await create(servers[1], 'third')).status).toBe(201);
    expect((await create(servers[0], 'fourth')).status).toBe(429);

    for (const server of servers) {
      const replay = await create(server, 'race', 'the-key');
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as { id: string }).id).toBe([...ids][0]);
    }
    expect((await database.store.jobs.list(projectId, { limit: 100 })).jobs).toHaveLength(3);
  }, 60_000);
});
