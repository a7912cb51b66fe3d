import { beforeAll, describe, expect, it } from 'vitest';
import { jobSchema } from '../../src/api/schemas.js';
import { testDialects } from '../support/db.js';
import { runCli } from '../support/processes.js';
import { heldUntil } from '../support/scripted-model.js';
import { useScriptedServer } from '../support/scripted-server.js';

// fetch's json() is untyped; these tests check the shapes they read.
const read = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;

// The built server over real HTTP, set up through the real CLI, the way a newcomer would.
describe.each(testDialects())('agentjobs serve end to end on %s', (dialect) => {
  let projectId: string;
  let key: string;
  // The worker inside `serve` takes each job to a model that never answers, so jobs stay active
  // while this test drives them through the API (the agent suite covers jobs that finish).
  const scripted = useScriptedServer(
    {
      name: 'e2e',
      dialect,
      branch: 'trunk',
      files: {},
      model: {
        script: Array.from({ length: 20 }, () => heldUntil(new Promise<void>(() => {}), { text: 'never' })),
      },
      project: false,
    },
    async (started) => expect(await started.close()).toBe(0),
  );
  beforeAll(async () => {
    const repo = scripted.repo;

    const project = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', repo, '--json'],
      scripted.env,
    );
    expect(project.code, project.stderr).toBe(0);
    const created = JSON.parse(project.stdout);
    expect(created).toMatchObject({ name: 'Docs', repository: repo, host: 'local', baseBranch: 'trunk' });
    projectId = created.id;

    const keyResult = await runCli(
      ['key', 'create', '--project', projectId, '--name', 'e2e', '--json'],
      scripted.env,
    );
    expect(keyResult.code, keyResult.stderr).toBe(0);
    key = JSON.parse(keyResult.stdout).key;
    expect(key).toMatch(/^ajs_[0-9A-Za-z]{46}$/);
  });

  it('serves health, readiness and OpenAPI over HTTP', async () => {
    expect(await read(await fetch(`${scripted.server.url}/healthz`))).toEqual({
      status: 'ok',
      model: 'ready',
    });
    expect((await fetch(`${scripted.server.url}/readyz`)).status).toBe(200);
    expect((await read(await fetch(`${scripted.server.url}/v2/openapi.json`))).openapi).toBe('3.1.0');
  });

  it('creates, gets, lists, follows up and archives a job over real HTTP', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const base = `${scripted.server.url}/v2/agent/${projectId}/job`;
    const created = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Add a FAQ page' }),
    });
    expect(created.status).toBe(201);
    const job = jobSchema.parse(await read(created));
    expect(created.headers.get('location')).toBe(`/v2/agent/${projectId}/job/${job.id}`);
    expect(job).toMatchObject({ status: 'active', phase: 'queued', baseRef: 'trunk' });

    const got = await fetch(`${base}/${job.id}`, { headers });
    // The worker may already have moved the phase on; the job is the same one, still active.
    expect(await read(got)).toMatchObject({
      id: job.id,
      prompt: job.prompt,
      status: 'active',
      source: job.source,
    });

    const listed = await read<{ jobs: { id: string }[] }>(await fetch(`${base}?limit=5`, { headers }));
    expect(listed.jobs.map((j) => j.id)).toContain(job.id);

    const followed = await fetch(`${base}/${job.id}/message`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Also link it from the home page' }),
    });
    expect(followed.status).toBe(200);

    const archived = await fetch(`${base}/${job.id}/archive`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
    });
    expect(archived.status).toBe(200);
    expect((await read(archived)).status).toBe('archived');

    const events = await read<{ events: { type: string; data: Record<string, unknown> }[] }>(
      await fetch(`${base}/${job.id}/events`, { headers }),
    );
    // The worker adds its own phase events; the API's are the first status, the follow-up and the archive.
    const types = events.events.map((e) => e.type);
    expect(types[0]).toBe('status');
    expect(types).toContain('message');
    expect(events.events.at(-1)).toMatchObject({ type: 'status', data: { status: 'archived' } });
  });

  it('drives the same job life through the CLI client', async () => {
    const clientEnv = {
      AGENTJOBS_URL: scripted.server.url,
      AGENTJOBS_API_KEY: key,
      AGENTJOBS_PROJECT: projectId,
    };
    const created = await runCli(['job', 'create', 'Fix the broken link in the README', '--json'], clientEnv);
    expect(created.code, created.stderr).toBe(0);
    const job = jobSchema.parse(JSON.parse(created.stdout));

    const got = await runCli(['job', 'get', job.id], clientEnv);
    expect(got.stdout).toContain(job.id);
    expect(got.stdout).toMatch(/active \((queued|preparing|running)\)/);

    const listed = JSON.parse((await runCli(['job', 'list', '--json'], clientEnv)).stdout);
    expect(listed.jobs[0].id).toBe(job.id);

    const message = await runCli(['job', 'message', job.id, 'Keep the anchor text', '--json'], clientEnv);
    expect(JSON.parse(message.stdout).status).toBe('active');

    const archived = await runCli(['job', 'archive', job.id, '--json'], clientEnv);
    expect(JSON.parse(archived.stdout).status).toBe('archived');

    const refused = await runCli(['job', 'message', job.id, 'too late'], clientEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('job_archived');

    const badKey = await runCli(['job', 'list'], { ...clientEnv, AGENTJOBS_API_KEY: 'ajs_nope' });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain('unauthorized');
  });

  it('never prints the key in its logs', () => {
    expect(scripted.server.output.length).toBeGreaterThan(3);
    expect(scripted.server.output.join('\n')).not.toContain(key);
  });
});
