import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

/**
 * A plaintext API key must never come back in a response, land in a log line, be stored in a
 * row, or be echoed by an error, whichever way a client misuses it.
 */
describe.each(testDialects())('API keys stay secret on %s', (dialect) => {
  let t: TestApp;
  const keys: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(dialect);
    keys.push(t.key);
    keys.push(await t.makeKey({ scopes: ['read'] }));
    keys.push(await t.makeKey({ expiresAt: '2020-01-01T00:00:00.000Z' }));
    const revoked = await t.makeKey();
    keys.push(revoked);
    const [newest] = await t.store.apiKeys.list(t.project.id);
    await t.store.apiKeys.revoke(t.project.id, newest?.id ?? '');
  });
  afterAll(() => t.close());

  it('appears in no response, log line, error or row', async () => {
    const url = `/v2/agent/${t.project.id}/job`;
    const bodies: string[] = [];
    for (const key of keys) {
      const attempts = [
        { method: 'GET', url, headers: { authorization: `Bearer ${key}` } },
        { method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload: { prompt: 'x' } },
        { method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload: { prompt: key } },
        { method: 'GET', url: `${url}?api_key=${key}` },
        { method: 'GET', url: `${url}?cursor=${key}`, headers: { authorization: `Bearer ${key}` } },
        { method: 'GET', url: `${url}/${key}`, headers: { authorization: `Bearer ${key}` } },
        { method: 'GET', url: `/v2/${key}`, headers: { authorization: `Bearer ${key}` } },
        { method: 'GET', url, headers: { 'x-api-key': key } },
        { method: 'GET', url, headers: { authorization: `Basic ${key}` } },
        { method: 'GET', url, headers: { authorization: `Bearer ${key}x` } },
        {
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${key}` },
          payload: { prompt: 'x', [key]: 1 },
        },
        {
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': key },
          payload: { prompt: 'y' },
        },
      ] as const;
      for (const attempt of attempts) {
        const response = await t.app.inject(attempt as never);
        bodies.push(JSON.stringify(response.headers), response.body);
      }
    }
    // The prompt holding a key was accepted: that is the client's content, not a credential we
    // handle. Everything else must be clean.
    const promptJobIds = new Set(
      (await t.store.jobs.list(t.project.id, { limit: 100 })).jobs
        .filter((j) => keys.includes(j.prompt))
        .map((j) => j.id),
    );
    expect(promptJobIds.size).toBeGreaterThan(0);
    const leaks = (text: string) => keys.filter((key) => text.includes(key));

    const responseText = bodies
      .filter((body) => ![...promptJobIds].some((id) => body.includes(id)))
      .join('\n');
    expect(leaks(responseText)).toEqual([]);
    expect(t.logs.length).toBeGreaterThan(20);
    expect(leaks(t.logs.join('\n'))).toEqual([]);

    const kysely = t.store.db.kysely;
    const stored = JSON.stringify([
      await kysely.selectFrom('api_keys').selectAll().execute(),
      await kysely.selectFrom('idempotency_keys').selectAll().execute(),
      await kysely.selectFrom('rate_limits').selectAll().execute(),
      await kysely.selectFrom('projects').selectAll().execute(),
      await kysely
        .selectFrom('jobs')
        .selectAll()
        .where('id', 'not in', [...promptJobIds])
        .execute(),
    ]);
    expect(stored).toContain('ajs_'); // prefixes are there, so the check below is meaningful
    expect(leaks(stored)).toEqual([]);
  });

  // A file and its WAL are SQLite's; PostgreSQL keeps its pages where the test cannot read them.
  it.runIf(dialect === 'sqlite')('keeps a used key out of the database file and its WAL', async () => {
    const key = await t.makeKey();
    const url = `/v2/agent/${t.project.id}/job`;
    const created = await t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}` },
      payload: { prompt: 'z' },
    });
    expect(created.statusCode).toBe(201);
    expect(
      (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } })).statusCode,
    ).toBe(200);
    const file = t.database.url.slice('sqlite:'.length);
    const bytes = [file, `${file}-wal`]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString('latin1'))
      .join('');
    expect(bytes).toContain('ajs_'); // the display prefix is stored, so the file was read
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes(key.slice(8))).toBe(false);
  });
});
