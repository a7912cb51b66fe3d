import { afterAll, describe, expect, it } from 'vitest';
import { testDialects, testJobInput } from '../support/db.js';
import { useProcessSuite } from '../support/process-suite.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { heldUntil } from '../support/scripted-model.js';
import { git, makeRepo, settledJob, waitFor } from '../support/worker.js';

const startWorkerProcess = (env: Record<string, string>) => startServerProcess(env, 'worker');

// `agentjobs worker` on its own: the real agent against a scripted model, the local code host, and
// a graceful SIGTERM that hands the running job back.
describe.each(testDialects())('the agentjobs worker process on %s', (dialect) => {
  const suite = useProcessSuite({ name: 'worker-role', dialect });
  const running: ServerProcess[] = [];
  afterAll(() => {
    for (const worker of running) worker.kill();
  });

  it('runs a job, and on SIGTERM hands a running job back for the next worker', async () => {
    const { model } = suite;
    const { repo, baseSha } = makeRepo(suite.dir);
    const env = suite.env({
      AGENTJOBS_PUBLIC_URL: 'http://agentjobs.test',
      // Jobs are created from this test process: on SQLite the worker learns of them by polling.
      AGENTJOBS_POLL_SECONDS: '1',
      AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '0',
    });
    const first = await startWorkerProcess(env);
    running.push(first);
    const projectId = JSON.parse(
      (await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env)).stdout,
    ).id as string;
    const store = suite.store();

    // The model writes a file, then holds its answer: the job is mid-run when SIGTERM comes.
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/new.md', content: '# New\n' } }] },
      heldUntil(new Promise<void>(() => {}), { text: 'never' }),
    ]);
    const job = await store.jobs.create(
      testJobInput({ id: projectId, repository: repo }, 'Add a new page', {
        model: 'openai-compatible:scripted',
      }),
    );
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
    const done = await settledJob(store, projectId, job.id, 20_000);
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
