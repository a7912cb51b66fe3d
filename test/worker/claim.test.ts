import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { startTsxChild } from '../support/processes.js';
import {
  fakeAgent,
  git,
  makeRepo,
  sleep,
  startTestWorker,
  type TestWorker,
  tempDir,
  testConfig,
  waitFor,
} from '../support/worker.js';

const PROJECTS = 5;
const JOBS_PER_PROJECT = 10;

interface Call {
  branch: string;
  projectId: string;
  start: number;
  end: number;
  worker: string;
}

/** A worker in another process (`child-worker.ts`); resolves once it runs. */
function startChildWorker(env: Record<string, string>, calls: Call[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const { child, exited } = startTsxChild<{ ready?: boolean; call?: Omit<Call, 'worker'> }>(
      'test/support/child-worker.ts',
      env,
      (message) => {
        if (message.ready) resolve(child);
        if (message.call) calls.push({ ...message.call, worker: 'child' });
      },
    );
    exited.catch(reject);
  });
}

/** The most calls of one project that overlapped in time. */
function worstOverlap(calls: Call[]): number {
  let worst = 0;
  for (const call of calls) {
    const overlapping = calls.filter(
      (other) => other.projectId === call.projectId && other.start <= call.start && other.end > call.start,
    );
    worst = Math.max(worst, overlapping.length);
  }
  return worst;
}

// Two workers in two processes share one queue: this one, and a child process.
describe.each(testDialects())('two worker processes on one %s database', (dialect) => {
  let t: TestStore;
  let dir: string;
  let local: TestWorker | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    t = await openTestStore(dialect);
    dir = tempDir('worker-claim');
  });
  afterAll(async () => {
    await local?.worker.stop({ graceMs: 0 });
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`run each of ${PROJECTS * JOBS_PER_PROJECT} jobs exactly once, at most 2 per project at a time`, async () => {
    const { repo, baseSha } = makeRepo(dir);
    const projects = await Promise.all(
      Array.from({ length: PROJECTS }, (_, i) =>
        t.store.projects.create({ name: `P${i}`, repository: repo }),
      ),
    );
    const calls: Call[] = [];
    const agent = fakeAgent(async ({ workspace, prompts }) => {
      const start = Date.now();
      await sleep(5 + Math.random() * 20);
      // Every third job changes a file, so publishing runs concurrently too.
      const n = Number(prompts[0]?.split(' ')[1]);
      if (n % 3 === 0) await workspace.writeFile(`jobs/${n}.md`, `job ${n}\n`);
      const projectId = path.basename(workspace.mirrorPath, '.git');
      calls.push({ branch: workspace.branch, projectId, start, end: Date.now(), worker: 'local' });
      return undefined;
    });

    // The jobs exist before the workers start: both race for the whole backlog at once.
    const jobs = [];
    for (let i = 0; i < PROJECTS * JOBS_PER_PROJECT; i++) {
      const project = projects[i % PROJECTS];
      if (!project) throw new Error('unreachable');
      jobs.push(
        await t.store.jobs.create({
          projectId: project.id,
          prompt: `job ${i}`,
          model: 'openai:fake',
          baseRef: 'main',
          repository: repo,
          draft: false,
        }),
      );
    }
    child = await startChildWorker(
      { DATABASE_URL: t.url, AGENTJOBS_DATA_DIR: path.join(dir, 'data-child'), WORKER_ID: 'child' },
      calls,
    );
    const started = Date.now();
    local = await startTestWorker({
      config: testConfig(path.join(dir, 'data-local')),
      store: t.store,
      agent,
      id: 'local',
    });

    const rows = await waitFor(
      () => t.db.kysely.selectFrom('jobs').select(['id', 'status', 'attempt', 'pr_link']).execute(),
      (list) => list.every((row) => row.status !== 'active'),
      { timeoutMs: 110_000, everyMs: 50 },
    );
    const elapsed = Date.now() - started;

    expect(rows.map((row) => row.status)).toEqual(jobs.map(() => 'completed'));
    expect(rows.map((row) => Number(row.attempt))).toEqual(jobs.map(() => 1));
    // The agent ran once per job, over both processes.
    expect(calls.map((call) => call.branch).sort()).toEqual(jobs.map((job) => job.source.ref).sort());
    expect(worstOverlap(calls)).toBeLessThanOrEqual(2);
    const byWorker = (worker: string) => calls.filter((call) => call.worker === worker).length;
    expect(byWorker('local')).toBeGreaterThan(0);
    expect(byWorker('child')).toBeGreaterThan(0);

    // Every third job published one pull request; the base never moved.
    const withChanges = jobs.filter((_, i) => i % 3 === 0).length;
    expect(rows.filter((row) => row.pr_link !== null)).toHaveLength(withChanges);
    const pulls = await t.db.kysely.selectFrom('pull_requests').select('head_branch').execute();
    expect(pulls).toHaveLength(withChanges);
    expect(git(repo, 'rev-parse', 'main')).toBe(baseSha);
    console.log(
      `${dialect}: ${jobs.length} jobs in ${elapsed} ms (this process ${byWorker('local')}, child ${byWorker('child')})`,
    );
  }, 120_000); // two processes and fifty git runs outlast the default timeout beside another suite
});
