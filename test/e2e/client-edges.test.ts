import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { runCli, type ServerProcess } from '../support/processes.js';
import { type ScriptedServer, scriptedServer } from '../support/scripted-server.js';

// fetch's json() is untyped; these tests check the shapes they read.
const read = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;

// What a client of the hosted API meets when it moves over: the built server over real HTTP.
describe.each(testDialects())('the edges a moving client hits, on %s', (dialect) => {
  let scripted: ScriptedServer;
  let server: ServerProcess;
  let env: Record<string, string>;
  let repo: string;
  let projectId: string;
  let key: string;
  const jobs = () => `${server.url}/v2/agent/${projectId}/job`;

  beforeAll(async () => {
    // No model provider at all: nothing in the environment names one.
    scripted = await scriptedServer({ name: 'edges', dialect, files: {}, provider: false });
    ({ server, env, repo, projectId, key } = scripted);
  });

  afterAll(async () => {
    expect(await scripted?.close()).toBe(0);
  });

  it('answers 404 job_not_found for a UUID job id on every job route', async () => {
    const uuid = '6f1c9a52-8d7e-4b1a-9c3e-2f6d5a4b7c81';
    const authorization = `Bearer ${key}`;
    const json = { authorization, 'content-type': 'application/json; charset=utf-8' };
    const answers = [
      await fetch(`${jobs()}/${uuid}`, { headers: { authorization } }),
      await fetch(`${jobs()}/${uuid}/message`, { method: 'POST', headers: json, body: '{"prompt":"more"}' }),
      await fetch(`${jobs()}/${uuid}/archive`, { method: 'POST', headers: { authorization } }),
      await fetch(`${jobs()}/${uuid}/events`, { headers: { authorization } }),
      await fetch(`${jobs()}/${uuid}/events`, { headers: { authorization, accept: 'text/event-stream' } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      const body = await read(answer);
      expect(body).toMatchObject({ code: 'job_not_found', requestId: answer.headers.get('x-request-id') });
    }
  });

  it('names the documented default model with no provider configured, and fails at once with model_unavailable', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(jobs(), {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Hello' }),
    });
    expect(created.status).toBe(201);
    const job = await read<{ id: string; model: string }>(created);
    expect(job.model).toBe('anthropic:claude-sonnet-4-5');
    interface Seen {
      status: string;
      model: string;
      error: { code: string; message: string } | null;
    }
    const seen: Seen[] = [];
    await expect
      .poll(
        async () => {
          seen.push(await read<Seen>(await fetch(`${jobs()}/${job.id}`, { headers })));
          return seen.at(-1)?.status;
        },
        { timeout: 20_000 },
      )
      .toBe('failed');
    const failed = seen.at(-1);
    expect(failed).toMatchObject({
      model: 'anthropic:claude-sonnet-4-5',
      error: { code: 'model_unavailable' },
    });
    expect(failed?.error?.message).toMatch(/ANTHROPIC_API_KEY/);
    expect(server.output.join('\n')).toMatch(/will fail with model_unavailable/);
  });

  it('takes JSON sent with charset=utf-8 for a create and a follow-up', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=utf-8' };
    const created = await fetch(jobs(), {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Café' }),
    });
    expect(created.status).toBe(201);
    const job = await read<{ id: string; prompt: string }>(created);
    expect(job.prompt).toBe('Café');
    const followed = await fetch(`${jobs()}/${job.id}/message`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Also the naïve page' }),
    });
    expect(followed.status).toBe(200);
  });

  it('makes an instance key with `key create --all-projects` that works on every project', async () => {
    const second = await runCli(['project', 'create', '--name', 'Handbook', '--repo', repo, '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    const secondId = (JSON.parse(second.stdout) as { id: string }).id;

    const made = await runCli(
      ['key', 'create', '--all-projects', '--name', 'org', '--scopes', 'read', '--expires', '30d', '--json'],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    const created = JSON.parse(made.stdout) as { id: string; key: string; projectId: string | null };
    expect(created).toMatchObject({ projectId: null, key: expect.stringMatching(/^ajs_/) });
    const human = await runCli(['key', 'create', '--all-projects', '--name', 'spare'], env);
    expect(human.stdout).toContain('for every project (instance key)');

    const list = (projectId: string) =>
      fetch(`${server.url}/v2/agent/${projectId}/job`, {
        headers: { authorization: `Bearer ${created.key}` },
      });
    for (const id of [projectId, secondId]) expect((await list(id)).status).toBe(200);
    // Read scope only, as asked.
    const write = await fetch(`${server.url}/v2/agent/${secondId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: '{"prompt":"x"}',
    });
    expect(write.status).toBe(403);
    const unknown = await list('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect([unknown.status, (await read(unknown)).code]).toEqual([404, 'project_not_found']);

    type Listed = { keys: { id: string; projectId: string | null; expiresAt: string | null }[] };
    const instance = JSON.parse(
      (await runCli(['key', 'list', '--all-projects', '--json'], env)).stdout,
    ) as Listed;
    expect(instance.keys.find((k) => k.id === created.id)).toMatchObject({
      projectId: null,
      expiresAt: expect.any(String),
    });
    expect(instance.keys.every((k) => k.projectId === null)).toBe(true);
    // A project's list shows the keys that work on it: its own and the instance keys.
    const ofProject = JSON.parse(
      (await runCli(['key', 'list', '--project', projectId, '--json'], env)).stdout,
    ) as Listed;
    expect(ofProject.keys.map((k) => k.projectId)).toEqual(expect.arrayContaining([projectId, null]));
    const table = await runCli(['key', 'list', '--project', secondId], env);
    expect(table.stdout).toMatch(/PROJECT/);
    expect(table.stdout).toContain('all');
    // Key lists never hold the key itself.
    for (const output of [JSON.stringify(instance), JSON.stringify(ofProject), table.stdout]) {
      expect(output).not.toContain(created.key);
    }

    const both = await runCli(['key', 'create', '--all-projects', '--project', projectId], env);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/not both/);
    const neither = await runCli(['key', 'create'], env);
    expect(neither.code).not.toBe(0);
    expect(neither.stderr).toMatch(/--all-projects/);

    // Revoked as an instance key, by the CLI's process: the server refuses it on its next request.
    const wrongOwner = await runCli(['key', 'revoke', '--project', projectId, created.id], env);
    expect(wrongOwner.code).not.toBe(0);
    expect((await list(secondId)).status).toBe(200);
    const revoked = await runCli(['key', 'revoke', '--all-projects', created.id, '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await list(secondId)).status).toBe(401);
  });
});
