import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { createProjectAndKey, jobApi } from '../support/e2e.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { makeRepo, tempDir } from '../support/worker.js';

// Archiving a job through the API closes its pull request: the built server's closer does it
// after the archive has answered.
describe('archiving a job on a running server', () => {
  let dir: string;
  let model: ScriptedModelServer;
  let server: ServerProcess;
  let env: Record<string, string>;
  let projectId = '';
  let key = '';

  beforeAll(async () => {
    dir = tempDir('archive-closes-pr');
    const { repo } = makeRepo(dir);
    model = await startScriptedModel();
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), HOME: dir };
    server = await startServerProcess({
      ...env,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_ADMIN_PASSWORD: 'archive closes pr password',
      AGENTJOBS_POLL_SECONDS: '1',
    });
    ({ projectId, key } = await createProjectAndKey(env, repo));
  });
  afterAll(async () => {
    await server?.stop();
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const { call, waitUntil } = jobApi(() => ({ url: server.url, projectId, key }));
  const pullState = async (number: number) => {
    const listed = await runCli(['pr', 'list', '--project', projectId, '--json'], env);
    const { pullRequests } = JSON.parse(listed.stdout) as {
      pullRequests: { number: number; state: string }[];
    };
    return pullRequests.find((pull) => pull.number === number)?.state;
  };

  it('closes the pull request of the archived job', { timeout: 90_000 }, async () => {
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n' } }] },
      { text: 'Add a FAQ page' },
    ]);
    const created = await call('POST', '/job', { prompt: 'Add a FAQ page' });
    const job = await waitUntil(created.job.id, (current: Job) => current.status !== 'active');
    expect(job.status).toBe('completed');
    const number = Number(job.prLink?.split('/').pop());
    expect(await pullState(number)).toBe('open');

    const archived = await call('POST', `/job/${job.id}/archive`, {});
    expect(archived.status).toBe(200);
    let state = await pullState(number);
    for (let tries = 0; state === 'open' && tries < 60; tries++) {
      await sleep(500);
      state = await pullState(number);
    }
    expect(state).toBe('closed');
    const { job: page } = await call('GET', `/job/${job.id}/events`);
    const { events } = page as unknown as { events: { type: string; data: { action?: string } }[] };
    // The last pull_request event (after the one its opening wrote) says it was closed.
    expect(events.filter((event) => event.type === 'pull_request').at(-1)?.data.action).toBe('closed');
  });
});
