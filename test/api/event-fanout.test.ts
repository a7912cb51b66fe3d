import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJobOverHttp, startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface OpenStream {
  /** The seq of every event received so far. */
  seqs: number[];
  close(): void;
  /** Resolves when the server ends the stream (or it is closed). */
  ended: Promise<void>;
}

/** Opens a live stream and collects the seq of each event it brings. */
async function openStream(url: string, key: string): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const seqs: number[] = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          if (id) seqs.push(Number(id));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return { seqs, close: () => controller.abort(), ended };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

describe.each(testDialects())('live event streams fed by one listener, on %s', (dialect) => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(dialect, { AGENTJOBS_MAX_STREAMS_PER_KEY: '12' });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `${address}/v2/agent/${t.project.id}/job`;
  });
  afterAll(() => t.close());

  const createJob = () => createJobOverHttp(base, t.key, 'Stream me');

  it('idle streams make no database queries but one key check a second for them all, and every one gets a new event promptly', async () => {
    const jobId = await createJob();
    const streams = await Promise.all(
      Array.from({ length: 10 }, () => openStream(`${base}/${jobId}/events`, t.key)),
    );
    try {
      await waitFor(
        () => streams.every((stream) => stream.seqs.includes(1)),
        'every stream has the first event',
      );
      // Let every stream finish its first look at the job.
      await sleep(500);

      const list = vi.spyOn(t.store.events, 'list');
      const get = vi.spyOn(t.store.jobs, 'get');
      const queries = vi.spyOn(t.store.db.kysely.getExecutor(), 'executeQuery');
      const keyChecks = vi.spyOn(t.store.apiKeys, 'findByIds');
      try {
        await sleep(2500);
        expect({ list: list.mock.calls.length, get: get.mock.calls.length }).toEqual({ list: 0, get: 0 });
        expect(queries.mock.calls.filter(([query]) => !query.sql.includes('api_keys'))).toEqual([]);
        // Whether their key was revoked is read once a second for the process, not once per stream.
        expect(keyChecks.mock.calls.length).toBeGreaterThanOrEqual(1);
        expect(keyChecks.mock.calls.length).toBeLessThanOrEqual(4);
        expect(keyChecks.mock.calls.map(([ids]) => ids.length)).toEqual(keyChecks.mock.calls.map(() => 1));
      } finally {
        list.mockRestore();
        get.mockRestore();
        queries.mockRestore();
        keyChecks.mockRestore();
      }

      await t.store.events.append(jobId, 'message', { role: 'assistant', text: 'news' });
      await waitFor(
        () => streams.every((stream) => stream.seqs.includes(2)),
        'every stream has the new event',
      );

      // The job's end reaches every stream too, which then ends.
      await t.store.jobs.archive(t.project.id, jobId);
      await Promise.all(streams.map((stream) => stream.ended));
      for (const stream of streams) expect(stream.seqs).toEqual([1, 2, 3]);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('a stream of another job is not woken by this job', async () => {
    const quiet = await createJob();
    const busy = await createJob();
    const stream = await openStream(`${base}/${quiet}/events`, t.key);
    try {
      await waitFor(() => stream.seqs.includes(1), 'the stream has the first event');
      await sleep(300);
      const list = vi.spyOn(t.store.events, 'list');
      try {
        for (let i = 0; i < 5; i++)
          await t.store.events.append(busy, 'message', { role: 'assistant', text: `${i}` });
        await sleep(500);
        expect(list).not.toHaveBeenCalled();
      } finally {
        list.mockRestore();
      }
    } finally {
      stream.close();
    }
  });

  it('caps the live streams of one key, answering 429 in the error shape', async () => {
    const jobId = await createJob();
    const url = `${base}/${jobId}/events`;
    const streams = await Promise.all(Array.from({ length: 12 }, () => openStream(url, t.key)));
    try {
      const over = await fetch(url, {
        headers: { authorization: `Bearer ${t.key}`, accept: 'text/event-stream' },
      });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBeTruthy();
      const body = (await over.json()) as { code: string; error: string; requestId: string };
      expect(body).toMatchObject({ code: 'rate_limited', requestId: over.headers.get('x-request-id') });

      // Another key of the project has a cap of its own; JSON pages are not streams.
      const other = await openStream(url, await t.makeKey());
      other.close();
      const page = await fetch(url, { headers: { authorization: `Bearer ${t.key}` } });
      expect(page.status).toBe(200);

      // Closing a stream frees its place.
      streams[0]?.close();
      let again: OpenStream | null = null;
      const deadline = Date.now() + 5000;
      while (!again && Date.now() < deadline) {
        again = await openStream(url, t.key).catch(() => null);
        if (!again) await sleep(50);
      }
      expect(again).not.toBeNull();
      again?.close();
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
