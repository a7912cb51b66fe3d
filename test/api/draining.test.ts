import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

// While the process drains, the job operations refuse new work themselves: the API, MCP (and the
// dashboard, test/web/draining.test.ts) answer alike, and writes that start nothing still go on.
describe.each(testDialects())('the API and MCP while the process drains on %s', (dialect) => {
  let t: TestApp;
  let job: Job;
  let client: Client;
  const headers = () => ({ authorization: `Bearer ${t.key}`, 'content-type': 'application/json' });
  const v2 = (path: string) => `/v2/agent/${t.project.id}${path}`;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    job = await t.makeJob('Fix the header');
    const url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
    client = new Client({ name: 'draining-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${t.key}` } },
      }),
    );
    t.lifecycle.draining = true;
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('answers a create and a follow-up with 503 unavailable and Retry-After, and writes nothing', async () => {
    for (const [url, payload] of [
      [v2('/job'), { prompt: 'Add a FAQ page' }],
      [v2(`/job/${job.id}/message`), { prompt: 'Also the footer' }],
    ] as const) {
      const refused = await t.app.inject({ method: 'POST', url, headers: headers(), payload });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json()).toMatchObject({ code: 'unavailable' });
    }
    const { jobs } = await t.store.jobs.list(t.project.id, { limit: 10 });
    expect(jobs.map((each) => each.id)).toEqual([job.id]);
    const events = await t.store.events.list(job.id, 0, 100);
    expect(events.some((event) => event.type === 'message' && event.data.text === 'Also the footer')).toBe(
      false,
    );
  });

  it('refuses the same through MCP', async () => {
    for (const [name, args] of [
      ['create_job', { prompt: 'Add a FAQ page' }],
      ['send_message', { jobId: job.id, prompt: 'Also the footer' }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError).toBe(true);
      const [content] = result.content;
      expect(JSON.parse(content?.type === 'text' ? content.text : '{}')).toMatchObject({
        code: 'unavailable',
      });
    }
  });

  it('serves reads, and writes that start no work (an archive)', async () => {
    expect(
      (await t.app.inject({ method: 'GET', url: v2(`/job/${job.id}`), headers: headers() })).statusCode,
    ).toBe(200);
    const got = (await client.callTool({ name: 'get_job', arguments: { jobId: job.id } })) as CallToolResult;
    expect(got.isError).toBeFalsy();
    const archived = await t.app.inject({
      method: 'POST',
      url: v2(`/job/${job.id}/archive`),
      headers: headers(),
    });
    expect(archived.statusCode).toBe(200);
  });

  it('takes work again once the process no longer drains', async () => {
    t.lifecycle.draining = false;
    const created = await t.app.inject({
      method: 'POST',
      url: v2('/job'),
      headers: headers(),
      payload: { prompt: 'Add a FAQ page' },
    });
    expect(created.statusCode).toBe(201);
  });
});
