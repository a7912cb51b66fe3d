import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { MCP_TOOLS, mcpConnections } from '../support/mcp-client.js';

/** The API error a tool error carries as its text. */
function apiError(result: CallToolResult): { error: string; code: string } {
  expect(result.isError).toBe(true);
  const [content] = result.content;
  return JSON.parse(content?.type === 'text' ? content.text : '{}');
}

/** The text of a tool error the SDK made itself (bad arguments, unknown tool). */
function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const [content] = result.content;
  return content?.type === 'text' ? content.text : '';
}

// The MCP endpoint of the app in process, listening on a real port, driven by the SDK's own
// client: what an assistant sends, including what it gets wrong.
describe.each(testDialects())('MCP over Streamable HTTP on %s', (dialect) => {
  let test: TestApp;
  let url: URL;
  const { connect, call, closeAll } = mcpConnections(() => url);

  beforeAll(async () => {
    test = await startTestApp(dialect, {
      AGENTJOBS_MAX_PROMPT_CHARS: '200',
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '3',
    });
    url = new URL('/mcp', await test.app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    await closeAll();
    await test?.close();
  });

  /** A raw initialize request, as the first POST of any MCP client. */
  const initialize = (headers: { authorization?: string }) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });

  it('answers 401 before any tool runs to no key, a bad key and a revoked key', async () => {
    const revoked = await test.makeKey();
    const [record] = (await test.store.apiKeys.list(test.project.id)).filter((key) =>
      revoked.startsWith(key.prefix),
    );
    expect(await test.store.apiKeys.revoke(test.project.id, record?.id ?? '')).toBe(true);
    const unknown = `ajs_${'A'.repeat(46)}`;
    for (const headers of [
      {},
      { authorization: 'Bearer nonsense' },
      { authorization: `Bearer ${unknown}` },
      { authorization: `Bearer ${revoked}` },
    ]) {
      const response = await initialize(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    }
    // The SDK's client reports the API's words.
    await expect(connect(revoked)).rejects.toThrow(/has been revoked/);
    expect((await initialize({ authorization: `Bearer ${test.key}` })).status).toBe(200);
    // GET and DELETE mean streams and sessions, which a stateless endpoint has not.
    expect((await fetch(url, { headers: { authorization: `Bearer ${test.key}` } })).status).toBe(405);
  });

  it('lists the eight tools with input and output schemas, and no projectId for a project key', async () => {
    const client = await connect(test.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.properties).not.toHaveProperty('projectId');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const create = tools.find((tool) => tool.name === 'create_job');
    expect(create?.inputSchema.required).toEqual(['prompt']);
  });

  it('creates, reads, lists, follows up, archives and reads events as the API does', async () => {
    const client = await connect(test.key);
    const created = await call(client, 'create_job', { prompt: 'Document the --dry-run flag', draft: true });
    expect(created.isError).toBeFalsy();
    const job = created.structuredContent as {
      id: string;
      status: string;
      projectId: string;
      draft: boolean;
    };
    expect(job).toMatchObject({ status: 'active', projectId: test.project.id, draft: true });
    expect(JSON.parse((created.content[0] as { text: string }).text)).toEqual(job);

    const read = await call(client, 'get_job', { jobId: job.id });
    expect(read.structuredContent).toMatchObject({ id: job.id, phase: 'queued' });
    const listed = await call(client, 'list_jobs', { status: 'active', limit: 1 });
    expect(listed.structuredContent).toMatchObject({ jobs: [{ id: job.id }] });
    const followed = await call(client, 'send_message', { jobId: job.id, prompt: 'Add an example too' });
    expect(followed.structuredContent).toMatchObject({ id: job.id, status: 'active' });
    const archived = await call(client, 'archive_job', { jobId: job.id });
    expect(archived.structuredContent).toMatchObject({ id: job.id, status: 'archived' });
    expect(apiError(await call(client, 'send_message', { jobId: job.id, prompt: 'more' }))).toMatchObject({
      code: 'job_archived',
    });

    const events = (await call(client, 'get_job_events', { jobId: job.id })).structuredContent as {
      events: { seq: number; type: string }[];
    };
    expect(events.events.map((event) => event.type)).toContain('status');
    const after = events.events.at(-2)?.seq ?? 0;
    const later = await call(client, 'get_job_events', { jobId: job.id, after, limit: 5 });
    expect(later.structuredContent).toMatchObject({ events: [{ seq: after + 1 }], nextCursor: null });
  });

  it('answers bad arguments with a tool error that names the argument, never a crash', async () => {
    const client = await connect(test.key);
    expect(errorText(await call(client, 'get_job', {}))).toMatch(/jobId/);
    expect(errorText(await call(client, 'get_job', { jobId: 42 }))).toMatch(/jobId/);
    expect(errorText(await call(client, 'create_job', { prompt: ['a list'] }))).toMatch(/prompt/);
    expect(errorText(await call(client, 'list_jobs', { limit: 'ten' }))).toMatch(/limit/);
    expect(errorText(await call(client, 'no_such_tool', {}))).toMatch(/no_such_tool/);

    // What only the API knows comes back as the API says it, code and message.
    const long = apiError(await call(client, 'create_job', { prompt: 'x'.repeat(201) }));
    expect(long).toMatchObject({ code: 'invalid_request' });
    expect(long.error).toMatch(/prompt must be at most 200 characters/);
    expect(apiError(await call(client, 'get_job', { jobId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' }))).toMatchObject({
      code: 'job_not_found',
    });
    // An id of any shape names no job (it never reaches another route).
    expect(apiError(await call(client, 'get_job', { jobId: '../../other' }))).toMatchObject({
      code: 'job_not_found',
    });
  });

  it("keeps a key to its project and its scopes: another project's job is not found, a read key cannot create", async () => {
    const other = await test.store.projects.create({ name: 'Other', repository: '/srv/other.git' });
    const otherClient = await connect(await test.makeKey({ projectId: other.id }));
    const theirs = (await call(otherClient, 'create_job', { prompt: 'Theirs' })).structuredContent as {
      id: string;
    };

    const client = await connect(test.key);
    expect(apiError(await call(client, 'get_job', { jobId: theirs.id }))).toMatchObject({
      code: 'job_not_found',
    });
    expect(apiError(await call(client, 'archive_job', { jobId: theirs.id }))).toMatchObject({
      code: 'job_not_found',
    });

    const reader = await connect(await test.makeKey({ scopes: ['read'] }));
    expect(apiError(await call(reader, 'create_job', { prompt: 'Not allowed' }))).toMatchObject({
      code: 'forbidden',
      error: 'This API key lacks the write scope.',
    });
    expect((await call(reader, 'list_jobs', {})).isError).toBeFalsy();
  });

  it("counts tool calls against the project's hourly budget like the API", async () => {
    const project = await test.store.projects.create({ name: 'Budget', repository: '/srv/budget.git' });
    const client = await connect(await test.makeKey({ projectId: project.id }));
    for (let i = 0; i < 3; i++) {
      expect((await call(client, 'create_job', { prompt: `Job ${i}` })).isError).toBeFalsy();
    }
    expect(apiError(await call(client, 'create_job', { prompt: 'One too many' }))).toMatchObject({
      code: 'rate_limited',
    });
    // The API sees the same spent budget.
    const response = await test.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${await test.makeKey({ projectId: project.id })}` },
      payload: { prompt: 'Over the API' },
    });
    expect(response.statusCode).toBe(429);
  });

  it('runs the 100 calls of a JSON-RPC batch at most four at a time, each spending the budget as a single call', async () => {
    const project = await test.store.projects.create({ name: 'Batch', repository: '/srv/batch.git' });
    const key = await test.makeKey({ projectId: project.id });
    // Every create spends the budget through this one write; slowed down, it shows how many calls
    // of the batch run at once.
    const hit = test.store.rateLimits.hit.bind(test.store.rateLimits);
    let calls = 0;
    let running = 0;
    let most = 0;
    const hits = vi.spyOn(test.store.rateLimits, 'hit').mockImplementation(async (...args) => {
      calls += 1;
      running += 1;
      most = Math.max(most, running);
      try {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return await hit(...args);
      } finally {
        running -= 1;
      }
    });
    // The SDK's client sends no batches of its own; its transport sends one as it is given.
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const answers: JSONRPCMessage[] = [];
    transport.onmessage = (message) => answers.push(message);
    const batch = (length: number) =>
      Array.from({ length }, (_, index) => ({
        jsonrpc: '2.0' as const,
        id: index + 1,
        method: 'tools/call',
        params: { name: 'create_job', arguments: { prompt: `Batch job ${index}` } },
      }));
    try {
      await transport.start();
      // The SDK refuses a batch of more than 100 messages before any of them runs.
      await expect(transport.send(batch(101))).rejects.toThrow(/Batch must not exceed 100/);
      expect(calls).toBe(0);
      await transport.send(batch(100));
    } finally {
      hits.mockRestore();
      await transport.close();
    }
    expect(calls).toBe(100);
    expect(most).toBeLessThanOrEqual(4);
    // The budget of 3 an hour lets three calls create a job; the other 97 get the API's 429.
    const results = answers.map((answer) =>
      'result' in answer ? (answer.result as CallToolResult) : undefined,
    );
    expect(results).toHaveLength(100);
    expect(results.filter((result) => result && !result.isError)).toHaveLength(3);
    const refused = results
      .filter((result) => result?.isError)
      .map((result) => apiError(result as CallToolResult));
    expect(refused).toHaveLength(97);
    for (const error of refused) expect(error.code).toBe('rate_limited');
    expect((await test.store.jobs.list(project.id, { limit: 100 })).jobs).toHaveLength(3);
  });

  it.runIf(dialect === 'sqlite')('lets the event loop turn between the calls of a batch', async () => {
    // SQLite reads never wait for I/O, so calls that did not yield would all run in one turn of
    // the event loop, holding up every other request (/healthz too) until the batch is done.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turnsOfCalls = new Set<number>();
    const list = test.store.jobs.list.bind(test.store.jobs);
    const reads = vi.spyOn(test.store.jobs, 'list').mockImplementation((...args) => {
      turnsOfCalls.add(turn);
      return list(...args);
    });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${test.key}` } },
    });
    try {
      await transport.start();
      await transport.send(
        Array.from({ length: 100 }, (_, index) => ({
          jsonrpc: '2.0' as const,
          id: index + 1,
          method: 'tools/call',
          params: { name: 'list_jobs', arguments: { limit: 1 } },
        })),
      );
    } finally {
      ticking = false;
      reads.mockRestore();
      await transport.close();
    }
    // At most four calls start in one turn.
    expect(turnsOfCalls.size).toBeGreaterThanOrEqual(25);
  });

  it('writes no key into the log', () => {
    expect(test.logs.join('\n')).not.toContain(test.key);
  });
});
