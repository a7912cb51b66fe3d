import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { fingerprint, sha256 } from '../../src/operations/create-job.js';
import { openDb } from '../../src/store/db.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { createStore, type Store } from '../../src/store/store.js';
import { memoryLog, startTestApp, type TestApp } from '../support/app.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';

describe.each(testDialects())('idempotent replays and the hourly budget on %s', (dialect) => {
  const env = { AGENTJOBS_RATE_LIMIT_PER_HOUR: '3' };
  let database: TestStore;
  let first: TestApp;
  let second: Awaited<ReturnType<typeof buildApp>>;
  let secondStore: Store;

  afterEach(async () => {
    await second?.close();
    await secondStore?.close();
    await first?.close();
    await database?.close();
  });

  /** Two apps, each with its own connection to one database, as two API processes have. */
  async function twoApps() {
    database = await openTestStore(dialect);
    first = await startTestApp(dialect, env, database);
    secondStore = createStore(openDb({ url: database.url }));
    second = await buildApp({
      config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
      secrets: lazySecretBox(loadConfig({ ...env, LOG_LEVEL: 'silent' })),
      store: secondStore,
      logger: createLogger('silent', memoryLog([])),
    });
    return [first.app, second] as const;
  }

  const create = (app: TestApp['app'], prompt: string, key?: string) =>
    app.inject({
      method: 'POST',
      url: `/v2/agent/${first.project.id}/job`,
      headers: { authorization: `Bearer ${first.key}`, ...(key ? { 'idempotency-key': key } : {}) },
      payload: { prompt },
    });

  /** What the budget counted for the project, over every window. */
  async function counted(): Promise<number> {
    const rows = await database.db.kysely
      .selectFrom('rate_limits')
      .select(['key', 'count'])
      .where('key', 'like', `project:${first.project.id}@%`)
      .execute();
    return rows.reduce((sum, row) => sum + Number(row.count), 0);
  }

  it('counts a 20-way race on one key once, across two apps', async () => {
    const apps = await twoApps();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create(apps[i % 2] as TestApp['app'], 'race', 'race-key')),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(','),
    ).toBe(true);
    const ids = new Set(responses.filter((r) => r.statusCode === 201).map((r) => r.json().id));
    expect(ids.size).toBe(1);
    expect((await database.store.jobs.list(first.project.id, { limit: 100 })).jobs).toHaveLength(1);
    expect(await counted()).toBe(1);
  });

  it('answers a replay with its job when the budget is spent, and counts neither 409 nor 422', async () => {
    const [one, two] = await twoApps();
    const original = await create(one, 'first', 'early-key');
    expect(original.statusCode).toBe(201);
    expect((await create(two, 'second')).statusCode).toBe(201);
    expect((await create(one, 'third')).statusCode).toBe(201);
    const refused = await create(two, 'fourth');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('rate_limited');

    for (const app of [one, two]) {
      const replay = await create(app, 'first', 'early-key');
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json().id).toBe(original.json().id);
    }
    // A reused key with another body, and a key whose first request is still in flight, say so
    // rather than 429: they create nothing, so they spend nothing.
    const mismatch = await create(two, 'not the first', 'early-key');
    expect(mismatch.statusCode).toBe(422);
    await database.store.idempotency.reserve(
      { projectId: first.project.id, key: sha256('busy-key'), owner: 'first' },
      fingerprint({ prompt: 'busy' }),
    );
    expect((await create(one, 'busy', 'busy-key')).statusCode).toBe(409);
    expect(await counted()).toBe(4);
  });

  it('gives the key back when the budget refuses it, so a retry is not held as in flight', async () => {
    const [one] = await twoApps();
    for (const prompt of ['a', 'b', 'c']) expect((await create(one, prompt)).statusCode).toBe(201);
    expect((await create(one, 'late', 'late-key')).statusCode).toBe(429);
    // Not held as in flight: the same request is refused by the budget again, not with 409.
    expect((await create(one, 'late', 'late-key')).statusCode).toBe(429);
  });
});
