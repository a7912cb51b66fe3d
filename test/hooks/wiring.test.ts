/**
 * What the receiver is given beyond the store (`AppOptions.hooks`): the project's context
 * repositories as candidates, and the note of each delivery recorded or repeated.
 */

import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import type { RecordResult } from '../../src/store/host-events.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';

describe.each(testDialects())('the receiver’s wiring, on %s', (dialect) => {
  let database: TestStore;
  let app: FastifyInstance;
  let double: GithubDouble;
  let base = '';
  const noted: RecordResult[] = [];
  const config = loadConfig({
    AGENTJOBS_DATA_DIR: join(tmpdir(), 'agentjobs-unused'),
    AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
  });
  const secrets = lazySecretBox(config);

  beforeAll(async () => {
    database = await openTestStore(dialect);
    app = await buildApp({
      config,
      store: database.store,
      logger: createLogger('silent'),
      secrets,
      hooks: {
        contextCandidates: async () => [
          { match: { kind: 'context', name: 'product' }, repository: 'https://github.com/acme/product.git' },
        ],
        onRecorded: (result) => {
          noted.push(result);
        },
      },
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    double = await startGithubDouble({ token: 'unused-token' });
  });
  afterAll(async () => {
    await double?.close();
    await app?.close();
    await database?.close();
  });

  it('matches a context repository and notes each delivery, the repeat as a duplicate', async () => {
    const project = await database.store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/acme/docs.git',
    });
    const secret = (await database.store.projects.rotateHookSecret(project.id, secrets())) ?? '';
    const url = `${base}/v2/hooks/${project.id}/github`;
    const message = double.hookMessage('acme/product', { kind: 'merged' });
    const first = await double.sendHook(url, message, secret);
    const again = await double.sendHook(url, message, secret, { deliveryId: first.deliveryId });
    expect([first.body.outcome, again.body.outcome]).toEqual(['recorded', 'duplicate']);
    expect(noted.map((result) => result.duplicate)).toEqual([false, true]);
    expect(noted[1]?.event.id).toBe(noted[0]?.event.id);
    expect(noted[0]?.event.event).toMatchObject({
      kind: 'pull_request_merged',
      repository: { kind: 'context', name: 'product' },
    });
    noted.length = 0;
  });
});
