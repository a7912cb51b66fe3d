import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { openDb } from '../../src/store/db.js';
import { createStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { runCli } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { makeRepo, tempDir } from '../support/worker.js';

/** One job's turns: write a file, then say what was done. */
const oneJob = (file: string) => [
  { toolCalls: [{ name: 'write_file', input: { path: file, content: '# Page\n' } }] },
  { text: `Add ${file}\n\nI added ${file}.` },
];

// `agentjobs worker --max-jobs N` (and `--once`): the built CLI against a real database and the
// scripted model claims at most N jobs, finishes them and exits 0, leaving the rest queued.
describe.each(testDialects())('agentjobs worker --max-jobs on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let model: ScriptedModelServer;
  let store: Store;
  let env: Record<string, string>;
  let projectId: string;
  let repo: string;

  beforeAll(async () => {
    dir = tempDir('max-jobs');
    database = await createTestDatabase(dialect);
    model = await startScriptedModel();
    ({ repo } = makeRepo(dir));
    env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_PUBLIC_URL: 'http://agentjobs.test',
      // One at a time, so that the scripted turns go to one job after the other.
      AGENTJOBS_WORKER_CONCURRENCY: '1',
      LOG_LEVEL: 'info',
    };
    const created = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env);
    projectId = JSON.parse(created.stdout).id as string;
    store = createStore(openDb({ url: database.url, poolSize: 2 }));
  });
  afterAll(async () => {
    await store?.close();
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const create = (prompt: string): Promise<Job> =>
    store.jobs.create({
      projectId,
      prompt,
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
  const statuses = async (jobs: Job[]) =>
    Promise.all(jobs.map(async (job) => (await store.jobs.get(projectId, job.id))?.status));

  it('claims two of three jobs with --max-jobs 2, finishes them and exits 0; --once takes the third', {
    timeout: 120_000,
  }, async () => {
    const jobs = [await create('First page'), await create('Second page'), await create('Third page')];
    model.setScript([...oneJob('one.md'), ...oneJob('two.md')]);
    const first = await runCli(['worker', '--max-jobs', '2'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(await statuses(jobs)).toEqual(['completed', 'completed', 'active']);
    const third = await store.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', jobs[2]?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(third).toMatchObject({ phase: 'queued', lease_owner: null });
    expect(Number(third.attempt)).toBe(0);
    expect(first.stdout + first.stderr).toContain('"signal":"max-jobs 2"');

    model.setScript(oneJob('three.md'));
    const once = await runCli(['worker', '--once'], env);
    expect(once.code, once.stderr).toBe(0);
    expect(await statuses(jobs)).toEqual(['completed', 'completed', 'completed']);
  });

  it('refuses a count that is not a whole number of jobs', async () => {
    const refused = await runCli(['worker', '--max-jobs', '0'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--max-jobs');
    expect(refused.stderr).toContain('at least 1');
  });
});
