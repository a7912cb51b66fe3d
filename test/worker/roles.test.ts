import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { createStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { heldUntil, type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { git, makeRepo, tempDir, waitFor } from '../support/worker.js';

const startWorkerProcess = (env: Record<string, string>) => startServerProcess(env, 'worker');

// `agentjobs worker` on its own: the real agent against a scripted model, the local code host, and
// a graceful SIGTERM that hands the running job back.
describe.each(testDialects())('the agentjobs worker process on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let model: ScriptedModelServer;
  let store: Store;
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    dir = tempDir('worker-role');
    database = await createTestDatabase(dialect);
    model = await startScriptedModel();
  });
  afterAll(async () => {
    for (const worker of running) worker.kill();
    await store?.close();
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs a job, and on SIGTERM hands a running job back for the next worker', async () => {
    const { repo, baseSha } = makeRepo(dir);
    const env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_PUBLIC_URL: 'http://agentjobs.test',
      // Jobs are created from this test process: on SQLite the worker learns of them by polling.
      AGENTJOBS_POLL_SECONDS: '1',
      AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '0',
    };
    const first = await startWorkerProcess(env);
    running.push(first);
    const projectId = JSON.parse(
      (await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env)).stdout,
    ).id as string;
    store = createStore(openDb({ url: database.url, poolSize: 2 }));

    // The model writes a file, then holds its answer: the job is mid-run when SIGTERM comes.
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/new.md', content: '# New\n' } }] },
      heldUntil(new Promise<void>(() => {}), { text: 'never' }),
    ]);
    const job = await store.jobs.create({
      projectId,
      prompt: 'Add a new page',
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    await waitFor(
      async () => model.requests.length,
      (n) => n >= 2,
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const released = await store.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(released).toMatchObject({ status: 'active', phase: 'queued', lease_owner: null });
    expect(Number(released.attempt)).toBe(1);
    expect(git(repo, 'branch', '--list', job.source.ref)).toBe('');

    // The next worker takes the job from the start and completes it.
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/new.md', content: '# New\n' } }] },
      { text: 'Add a new page\n\nI added docs/new.md.' },
    ]);
    const second = await startWorkerProcess(env);
    running.push(second);
    const done = await waitFor(
      () => store.jobs.get(projectId, job.id),
      (current) => current?.status !== 'active',
      { timeoutMs: 20_000, everyMs: 100 },
    );
    expect(done).toMatchObject({
      status: 'completed',
      error: null,
      title: 'Add a new page',
      prLink: `http://agentjobs.test/ui/projects/${projectId}/pulls/1`,
      filesChanged: 1,
    });
    expect(git(repo, 'rev-parse', 'main')).toBe(baseSha);
    expect(git(repo, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('docs/new.md');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // No secret and no stack trace in what the worker printed.
    expect([...first.output, ...second.output].join('\n')).not.toMatch(/at .*\.js:\d+/);
  });
});
