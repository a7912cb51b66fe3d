import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { git } from '../support/e2e.js';
import { MCP_TOOLS } from '../support/mcp-client.js';
import { CLI, runCli, type ServerProcess } from '../support/processes.js';
import type { ScriptedModelServer } from '../support/scripted-model.js';
import { type ScriptedServer, scriptedServer } from '../support/scripted-server.js';

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Polls `get_job` through the client until `done` holds. */
async function waitForJob(client: Client, jobId: string, done: (job: Job) => boolean): Promise<Job> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const result = await call(client, 'get_job', { jobId });
    expect(result.isError).toBeFalsy();
    const job = result.structuredContent as unknown as Job;
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`job still ${job.status}/${job.phase}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The built server, a scripted model and real git, driven by the MCP SDK's own clients: over
// Streamable HTTP at /mcp, and over stdio through `agentjobs mcp`, as an assistant would.
describe('MCP end to end', () => {
  let scripted: ScriptedServer;
  let repo: string;
  let model: ScriptedModelServer;
  let server: ServerProcess;
  let projectId: string;
  let key: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    scripted = await scriptedServer({
      name: 'mcp-e2e',
      dialect: 'sqlite',
      env: { AGENTJOBS_ADMIN_PASSWORD: 'mcp e2e admin password' },
    });
    ({ repo, model, server, projectId, key } = scripted);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await scripted?.close();
  });

  async function overHttp(): Promise<Client> {
    const client = new Client({ name: 'e2e-http', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  /** `agentjobs mcp`, started by the SDK's stdio transport; it exits when its stdin closes. */
  async function overStdio(): Promise<Client> {
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { PATH: process.env.PATH ?? '', AGENTJOBS_URL: server.url, AGENTJOBS_API_KEY: key },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  }

  /** The life of a job as an assistant drives it: to a pull request, a follow-up, events, archive. */
  async function runJobThrough(client: Client, file: string) {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS);

    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: file, content: '# Page\n\nFirst version.\n' } }] },
      { text: `Add ${file}\n\nI added ${file}.` },
    ]);
    const created = await call(client, 'create_job', { prompt: `Add a page ${file}` });
    expect(created.isError).toBeFalsy();
    const { id } = created.structuredContent as { id: string };
    const job = await waitForJob(client, id, (j) => j.status !== 'active');
    expect(job).toMatchObject({ status: 'completed', filesChanged: 1, error: null });
    expect(job.prLink).toMatch(new RegExp(`/ui/projects/${projectId}/pulls/\\d+$`));
    expect(git(repo, 'show', `${job.source.ref}:${file}`)).toContain('First version.');

    model.setScript([
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: file, old_text: 'First version.', new_text: 'Second version.' },
          },
        ],
      },
      { text: 'Updated the page' },
    ]);
    const followed = await call(client, 'send_message', { jobId: id, prompt: 'Say second version' });
    expect(followed.structuredContent).toMatchObject({ id, status: 'active' });
    const again = await waitForJob(
      client,
      id,
      (j) => j.status !== 'active' && j.summary === 'Updated the page',
    );
    expect(again).toMatchObject({ status: 'completed', prLink: job.prLink });
    expect(git(repo, 'show', `${job.source.ref}:${file}`)).toContain('Second version.');

    const events = (await call(client, 'get_job_events', { jobId: id })).structuredContent as {
      events: { seq: number; type: string }[];
    };
    const types = events.events.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['tool_call', 'commit', 'pull_request']));
    const last = events.events.at(-1)?.seq ?? 0;
    expect((await call(client, 'get_job_events', { jobId: id, after: last })).structuredContent).toEqual({
      events: [],
      nextCursor: null,
    });

    const archived = await call(client, 'archive_job', { jobId: id });
    expect(archived.structuredContent).toMatchObject({ id, status: 'archived' });

    const unknown = await call(client, 'get_job', { jobId: '01JZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse((unknown.content[0] as { text: string }).text)).toMatchObject({
      code: 'job_not_found',
      error: 'No job 01JZZZZZZZZZZZZZZZZZZZZZZZ in this project.',
    });
  }

  it('runs a job to its pull request over Streamable HTTP', async () => {
    await runJobThrough(await overHttp(), 'guide/http.md');
  });

  it('runs a job to its pull request over stdio through `agentjobs mcp`', async () => {
    await runJobThrough(await overStdio(), 'guide/stdio.md');
  });

  it('`agentjobs mcp` with a revoked or missing key says so and exits, printing nothing on stdout', async () => {
    const bad = await runCli(
      ['mcp'],
      { AGENTJOBS_URL: server.url, AGENTJOBS_API_KEY: `ajs_${'A'.repeat(46)}` },
      '',
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/The API key is not valid/);
    const none = await runCli(['mcp'], { AGENTJOBS_URL: server.url, AGENTJOBS_API_KEY: '' }, '');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/AGENTJOBS_API_KEY/);
  });
});
