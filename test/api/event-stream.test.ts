import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobOverHttp, startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

interface SseMessage {
  id: string;
  event: string;
  data: { seq: number; type: string; data: Record<string, unknown> };
}

/** Reads SSE messages from a live response until it ends or `until` says stop. */
async function readStream(response: Response, onMessage: (message: SseMessage) => void | Promise<void>) {
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => line && !line.startsWith(':'))
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      if (fields.data) {
        await onMessage({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

describe.each(testDialects())('live event stream on %s', (dialect) => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `${address}/v2/agent/${t.project.id}/job`;
  });
  afterAll(() => t.close());

  const headers = () => ({ authorization: `Bearer ${t.key}`, accept: 'text/event-stream' });
  const createJob = () => createJobOverHttp(base, t.key, 'Stream me');

  it('streams what happened, then new events live, and ends when the job ends', async () => {
    const jobId = await createJob();
    const response = await fetch(`${base}/${jobId}/events`, { headers: headers() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');

    const seen: SseMessage[] = [];
    await readStream(response, async (message) => {
      seen.push(message);
      // Events that happen while the client listens arrive on the open stream.
      if (seen.length === 1)
        await t.store.events.append(jobId, 'message', { role: 'assistant', text: 'working' });
      if (seen.length === 2) await t.store.jobs.archive(t.project.id, jobId);
    });
    expect(seen.map((m) => [m.id, m.event])).toEqual([
      ['1', 'status'],
      ['2', 'message'],
      ['3', 'status'],
    ]);
    expect(seen[2]?.data.data).toEqual({ status: 'archived' });
  });

  it('resumes exactly after Last-Event-ID', async () => {
    const jobId = await createJob();
    for (let i = 0; i < 3; i++)
      await t.store.events.append(jobId, 'message', { role: 'assistant', text: `m${i}` });
    await t.store.jobs.archive(t.project.id, jobId);
    const response = await fetch(`${base}/${jobId}/events`, {
      headers: { ...headers(), 'last-event-id': '2' },
    });
    const ids: string[] = [];
    await readStream(response, (message) => {
      ids.push(message.id);
    });
    expect(ids).toEqual(['3', '4', '5']);
  });

  it('answers JSON without the SSE Accept header, and errors as JSON before streaming', async () => {
    const jobId = await createJob();
    const json = await fetch(`${base}/${jobId}/events`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(json.headers.get('content-type')).toContain('application/json');
    const missing = await fetch(`${base}/01ARZ3NDEKTSV4RRFFQ69G5FAV/events`, { headers: headers() });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('job_not_found');
  });
});
