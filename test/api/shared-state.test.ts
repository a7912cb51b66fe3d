import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/config.js';
import { generateKey } from '../../src/domain/keys.js';
import { createLogger } from '../../src/log.js';
import { openDb } from '../../src/store/db.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { createStore } from '../../src/store/store.js';
import { memoryLog, startTestApp } from '../support/app.js';
import { openTestStore, testDialects } from '../support/db.js';

describe.each(testDialects())('state shared across API processes on %s', (dialect) => {
  it('holds one rate-limit budget across two app instances on one database', async () => {
    const database = await openTestStore(dialect);
    const env = { AGENTJOBS_RATE_LIMIT_PER_HOUR: '3' };
    // Two apps, each with its own connection, as two API processes would have.
    const first = await startTestApp(dialect, env, database);
    const secondStore = createStore(openDb({ url: database.url }));
    const second = await buildApp({
      config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
      secrets: lazySecretBox(loadConfig({ ...env, LOG_LEVEL: 'silent' })),
      store: secondStore,
      logger: createLogger('silent', memoryLog([])),
    });
    try {
      const create = (app: typeof second) =>
        app.inject({
          method: 'POST',
          url: `/v2/agent/${first.project.id}/job`,
          headers: { authorization: `Bearer ${first.key}` },
          payload: { prompt: 'shared budget' },
        });
      const statuses = [];
      for (const app of [first.app, second, first.app, second, first.app])
        statuses.push((await create(app)).statusCode);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
    } finally {
      await second.close();
      await secondStore.close();
      await first.close();
      await database.close();
    }
  });

  it('answers 503 with Retry-After while draining, and readiness says so', async () => {
    const lifecycle = { draining: false };
    const database = await openTestStore(dialect);
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      secrets: lazySecretBox(loadConfig({ LOG_LEVEL: 'silent' })),
      store: database.store,
      logger: createLogger('silent'),
      lifecycle,
    });
    const project = await database.store.projects.create({ name: 'd', repository: '/srv/d' });
    const key = generateKey();
    await database.store.apiKeys.create({ projectId: project.id, key, name: 'k', scopes: ['read', 'write'] });
    try {
      lifecycle.draining = true;
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().code).toBe('unavailable');
      const create = await app.inject({
        method: 'POST',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: `Bearer ${key}` },
        payload: { prompt: 'late' },
      });
      expect(create.statusCode).toBe(503);
      expect(create.headers['retry-after']).toBe('5');
      const active = await database.store.jobs.list(project.id, { status: 'active', limit: 10 });
      expect(active.jobs).toHaveLength(0);
      // Reads still work while in-flight work finishes.
      const list = await app.inject({
        method: 'GET',
        url: `/v2/agent/${project.id}/job`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(list.statusCode).toBe(200);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('an unreachable database', () => {
  it('answers 503 unavailable with Retry-After, not 500', async () => {
    // Nothing listens on port 1: every connection is refused at once.
    const store = createStore(openDb({ url: 'postgres://postgres@127.0.0.1:1/none' }));
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      secrets: lazySecretBox(loadConfig({ LOG_LEVEL: 'silent' })),
      store,
      logger: createLogger('silent'),
    });
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/v2/agent/p/job',
        headers: { authorization: `Bearer ${generateKey()}` },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'unavailable' });
      expect(response.headers['retry-after']).toBe('5');
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
