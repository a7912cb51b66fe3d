import { afterAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { useProcessSuite } from '../support/process-suite.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { git, makeRepo, waitFor } from '../support/worker.js';

const JOBS = 50;

const startWorkerProcess = (env: Record<string, string>) => startServerProcess(env, 'worker');

/**
 * The model writes `jobs/<n>.md` for the prompt `Job <n>`, then finishes. Jobs run concurrently
 * and share one script, so each turn is chosen from the request: a request that already carries a
 * tool result is a job's second.
 */
// biome-ignore lint/suspicious/noExplicitAny: the parsed chat-completions request
function writeThenFinish(body: any): ScriptedTurn {
  const messages: { role: string; content: unknown }[] = body?.messages ?? [];
  const prompt = JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '');
  const n = /Job (\d+)/.exec(prompt)?.[1] ?? 'unknown';
  if (messages.some((message) => message.role === 'tool'))
    return { text: `Add job ${n}\n\nI added jobs/${n}.md.` };
  return { toolCalls: [{ name: 'write_file', input: { path: `jobs/${n}.md`, content: `job ${n}\n` } }] };
}

// Two `agentjobs worker` processes started on one data directory (hence one mirror per project)
// and one database: every job must complete on a branch of its own, however their git work
// interleaves in the shared mirror.
describe.each(testDialects())('two worker processes sharing a data directory on %s', (dialect) => {
  const suite = useProcessSuite({
    name: 'shared-data',
    dialect,
    model: { script: Array.from({ length: 4 * JOBS }, () => ({ answer: writeThenFinish })) },
  });
  const workers: ServerProcess[] = [];
  afterAll(() => {
    for (const worker of workers) worker.kill();
  });

  it(`completes ${JOBS} jobs on one project, each on its own branch with its commit`, {
    timeout: 240_000,
  }, async () => {
    const { repo, baseSha } = makeRepo(suite.dir);
    const env = suite.env({
      AGENTJOBS_PUBLIC_URL: 'http://agentjobs.test',
      AGENTJOBS_POLL_SECONDS: '1',
      AGENTJOBS_WORKER_CONCURRENCY: '6',
      AGENTJOBS_PROJECT_CONCURRENCY: '12',
      AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '0',
    });
    const created = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const projectId = (JSON.parse(created.stdout) as { id: string }).id;
    workers.push(await startWorkerProcess(env), await startWorkerProcess(env));

    const store = suite.store();
    const jobs: Job[] = [];
    for (let n = 0; n < JOBS; n += 1) {
      jobs.push(
        await store.jobs.create({
          projectId,
          prompt: `Job ${n}`,
          model: 'openai-compatible:scripted',
          baseRef: 'main',
          repository: repo,
          draft: false,
        }),
      );
    }
    const finished = await waitFor(
      () => Promise.all(jobs.map((job) => store.jobs.get(projectId, job.id))),
      (current) => current.every((job) => job?.status !== 'active'),
      { timeoutMs: 200_000, everyMs: 250 },
    );

    const failures = finished.filter((job) => job?.status !== 'completed').map((job) => job?.error);
    expect(failures).toEqual([]);
    // Both processes took part, or the test would not share anything.
    for (const worker of workers) expect(worker.output.join('\n')).toContain('job run finished');
    const branches = new Set(finished.map((job) => job?.source.ref));
    expect(branches.size).toBe(JOBS);
    for (const [n, job] of jobs.entries()) {
      const branch = job.source.ref;
      expect(git(repo, 'diff', '--name-only', `main...${branch}`), branch).toBe(`jobs/${n}.md`);
      expect(git(repo, 'show', `${branch}:jobs/${n}.md`)).toBe(`job ${n}`);
      expect(git(repo, 'rev-parse', `${branch}^`)).toBe(baseSha);
    }
    expect(git(repo, 'rev-parse', 'main')).toBe(baseSha);
  });
});
