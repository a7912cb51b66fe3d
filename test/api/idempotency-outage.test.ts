import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

// A create with an Idempotency-Key that fails because the database went away must give its key
// back, or every retry of the client is told "still in flight" until the reservation counts as
// abandoned a minute later (seen after a PostgreSQL restart). The store is the real one; only the
// outage is simulated, by making one call throw what the dialect throws when the database cannot
// answer for a moment: pg for a connection a restart closed, SQLite for a file another process
// holds past the busy timeout.
describe.each(testDialects())('an Idempotency-Key across a database outage, on %s', (dialect) => {
  let t: TestApp;
  afterEach(async () => t?.close());

  const create = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/job`,
      headers: { authorization: `Bearer ${t.key}`, 'idempotency-key': key },
      payload: { prompt: 'Add an FAQ page' },
    });
  const outage = () =>
    dialect === 'postgres'
      ? new Error('Connection terminated unexpectedly')
      : Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

  it('is free again for the retry when the create failed after the reservation', async () => {
    t = await startTestApp(dialect);
    const real = t.store.jobs.create;
    t.store.jobs.create = async () => {
      t.store.jobs.create = real;
      throw outage();
    };
    const failed = await create('outage-create');
    expect(failed.statusCode).toBe(503);
    expect(failed.headers['retry-after']).toBeDefined();
    const retried = await create('outage-create');
    expect(retried.statusCode).toBe(201);
    expect((await t.store.jobs.list(t.project.id, { limit: 10 })).jobs).toHaveLength(1);
  });

  it('is free again when the reservation committed but its answer was lost', async () => {
    t = await startTestApp(dialect);
    const real = t.store.idempotency.reserve;
    t.store.idempotency.reserve = async (...args) => {
      t.store.idempotency.reserve = real;
      await real(...args);
      throw outage();
    };
    const failed = await create('outage-reserve');
    expect(failed.statusCode).toBe(503);
    const retried = await create('outage-reserve');
    expect(retried.statusCode).toBe(201);
    // And the key now replays that one job.
    const replay = await create('outage-reserve');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().id).toBe(retried.json().id);
  });

  it('does not give back a reservation another request holds', async () => {
    t = await startTestApp(dialect);
    const real = t.store.idempotency.reserve;
    // The first request's reservation never happened; another request holds the key meanwhile.
    t.store.idempotency.reserve = async (claim, hash) => {
      t.store.idempotency.reserve = real;
      await real({ ...claim, owner: 'someone-else' }, hash);
      throw outage();
    };
    expect((await create('held')).statusCode).toBe(503);
    const retried = await create('held');
    expect(retried.statusCode).toBe(409);
    expect(retried.json().code).toBe('idempotency_in_flight');
  });
});
