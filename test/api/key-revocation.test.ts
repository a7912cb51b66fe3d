import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { openDb } from '../../src/store/db.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { createStore, type Store } from '../../src/store/store.js';
import { memoryLog, startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

/** What an event stream brought until the server ended it. */
interface EndedStream {
  text: string;
  /** Milliseconds from the `end` call to the end of the stream. */
  msAfter: number;
}

/**
 * Opens a live event stream, waits until its first event has come, runs `end` and reads on until
 * the server ends the stream; gives up (the test fails) after `timeoutMs`.
 */
async function streamUntilEnded(url: string, key: string, end: () => Promise<unknown>, timeoutMs = 10_000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    let endedAt = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!endedAt && text.includes('id: 1\n')) {
        await end();
        endedAt = Date.now();
      }
    }
    return { text, msAfter: Date.now() - endedAt } satisfies EndedStream;
  } finally {
    clearTimeout(timer);
  }
}

// Two app instances on one database, each with its own connections, stand for two API processes
// (or an API process and the CLI): a key revoked by either is refused by both.
describe.each(testDialects())('revoking a key on %s', (dialect) => {
  let first: TestApp;
  let secondStore: Store;
  let second: FastifyInstance;
  let secondBase: string;

  beforeAll(async () => {
    first = await startTestApp(dialect);
    secondStore = createStore(openDb({ url: first.database.url }));
    second = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      secrets: lazySecretBox(loadConfig({ LOG_LEVEL: 'silent' })),
      store: secondStore,
      logger: createLogger('silent', memoryLog([])),
    });
    secondBase = `${await second.listen({ host: '127.0.0.1', port: 0 })}/v2/agent/${first.project.id}/job`;
  });
  afterAll(async () => {
    await second?.close();
    await secondStore?.close();
    await first?.close();
  });

  const get = (app: FastifyInstance, key: string) =>
    app.inject({
      method: 'GET',
      url: `/v2/agent/${first.project.id}/job`,
      headers: { authorization: `Bearer ${key}` },
    });
  /** Revokes `key` through the first app's store, as the dashboard or `agentjobs key revoke` does. */
  const revoke = async (key: string) => {
    const [record] = (await first.store.apiKeys.list(first.project.id)).filter((listed) =>
      key.startsWith(listed.prefix),
    );
    expect(await first.store.apiKeys.revoke(first.project.id, record?.id ?? '')).toBe(true);
  };
  const createJob = async () =>
    (
      await first.app.inject({
        method: 'POST',
        url: `/v2/agent/${first.project.id}/job`,
        headers: { authorization: `Bearer ${first.key}` },
        payload: { prompt: 'Stream me' },
      })
    ).json<{ id: string }>().id;

  it('answers 401 to the very next request, in the process that revoked and in another', async () => {
    const key = await first.makeKey();
    // Both have just admitted the key, so neither may answer from an earlier look at it.
    expect((await get(first.app, key)).statusCode).toBe(200);
    expect((await get(second, key)).statusCode).toBe(200);
    await revoke(key);
    for (const app of [first.app, second]) {
      const response = await get(app, key);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'unauthorized', error: 'The API key has been revoked.' });
    }
  });

  it('ends an open event stream in another process soon after its key is revoked, saying why', async () => {
    const key = await first.makeKey();
    const jobId = await createJob();
    const url = `${secondBase}/${jobId}/events`;
    // A stream of a good key on the same job, open throughout: only the revoked key's stream ends.
    let goodKeyStream: Promise<EndedStream> | undefined;
    const stream = await streamUntilEnded(url, key, async () => {
      goodKeyStream = streamUntilEnded(url, first.key, async () => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      await revoke(key);
    });
    // The job is still active: only the revocation can have ended the stream.
    expect((await secondStore.jobs.get(first.project.id, jobId))?.status).toBe('active');
    expect(stream.text).toMatch(/\n: The API key has been revoked\.\n\n$/);
    // The stream reads its key every second; the bound is generous for a busy machine.
    expect(stream.msAfter).toBeLessThan(8000);
    // Reconnecting is refused, as any request with the key.
    const again = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(again.status).toBe(401);

    // The good key's stream went on, and ends when the job does.
    await first.store.jobs.archive(first.project.id, jobId);
    const good = await goodKeyStream;
    expect(good?.text).toContain('"status":"archived"');
    expect(good?.text).not.toContain(': The API key');
  });

  it('ends an open event stream once its key expires', async () => {
    const key = await first.makeKey({ expiresAt: new Date(Date.now() + 4000).toISOString() });
    const jobId = await createJob();
    const stream = await streamUntilEnded(`${secondBase}/${jobId}/events`, key, async () => {});
    expect(stream.text).toMatch(/\n: The API key expired at [^\n]+\.\n\n$/);
  });
});
