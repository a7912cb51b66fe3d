import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { openDb } from '../../src/store/db.js';
import { isLeaseLost } from '../../src/store/queue/index.js';
import { createStore, type Store } from '../../src/store/store.js';
import { expireLease, openTestStore, type TestStore, testDialects } from '../support/db.js';
import {
  fakeAgent,
  git,
  sleep,
  startTestWorker,
  type TestWorker,
  testConfig,
  untilAborted,
  useRepository,
  waitFor,
} from '../support/worker.js';

describe.each(testDialects())('worker lifecycle on %s', (dialect) => {
  let t: TestStore;
  /**
   * Where jobs are created: on PostgreSQL a second handle, as an API process would have (so the
   * wake-up crosses connections). On SQLite the worker's own: two SQLite handles in one process
   * would wait on each other's locks synchronously, and the in-process wake-up is shared anyway.
   */
  let api: Store;
  const docs = useRepository({ name: 'worker-lifecycle' });
  let project: Project;
  const started: TestWorker[] = [];
  let next = 0;

  beforeAll(async () => {
    t = await openTestStore(dialect);
    api = dialect === 'postgres' ? createStore(openDb({ url: t.url, poolSize: 2 })) : t.store;
    project = await t.store.projects.create({ name: 'Docs', repository: docs.repo });
  });
  // Each test has its own workers.
  afterEach(async () => {
    await Promise.all(started.splice(0).map(({ worker }) => worker.stop({ graceMs: 0 })));
  });
  afterAll(async () => {
    if (api !== t.store) await api.close();
    await t.close();
  });

  const startWorker = async (
    agent: ReturnType<typeof fakeAgent>,
    worker: Parameters<typeof testConfig>[1] = {},
  ) => {
    const config = testConfig(path.join(docs.dir, `data-${++next}`), worker);
    const running = await startTestWorker({ config, store: t.store, agent, id: `w${next}` });
    started.push(running);
    return running;
  };
  const create = (prompt: string) =>
    api.jobs.create({
      projectId: project.id,
      prompt,
      model: 'openai:fake',
      baseRef: 'main',
      repository: docs.repo,
      draft: false,
    });
  const row = (jobId: string) =>
    t.db.kysely.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
  const completed = (job: Job) =>
    waitFor(
      () => t.store.jobs.get(project.id, job.id),
      (j) => j?.status === 'completed',
    );

  it('claims each new job woken by its creation, without the fallback poll', async () => {
    const agent = fakeAgent();
    // The fallback poll comes long after the test's own deadline: only the wake-up can claim.
    const running = await startWorker(agent, { pollMs: 10 * 60_000 });
    for (let i = 0; i < 5; i++) {
      const job = await create(`wake ${i}`);
      await waitFor(
        () => row(job.id),
        (r) => Number(r.attempt) >= 1,
        { timeoutMs: 60_000 },
      );
      await completed(job);
    }
    await running.worker.stop({ graceMs: 0 });
    expect(agent.calls.map((call) => call.prompts)).toEqual([0, 1, 2, 3, 4].map((i) => [`wake ${i}`]));
  }, 120_000);

  it('refuses the writes of a taken-over attempt and aborts its run; the new attempt publishes alone', async () => {
    let releaseOld = () => {};
    const gate = new Promise<void>((resolve) => {
      releaseOld = resolve;
    });
    let oldOutcome: unknown = null;
    let oldSignal: AbortSignal | null = null;
    // The old worker's heartbeat is slow, so it learns of the takeover from its own refused write.
    const oldAgent = fakeAgent(async ({ workspace, onEvent, signal }) => {
      oldSignal = signal;
      await workspace.writeFile('old.md', 'from the old attempt\n');
      await gate;
      try {
        await onEvent('message', { role: 'assistant', text: 'old attempt still here' });
        oldOutcome = 'accepted';
      } catch (error) {
        oldOutcome = error;
        throw error;
      }
      return { summary: 'old' };
    });
    // One slot: the old worker cannot win the job back for itself.
    const old = await startWorker(oldAgent, { heartbeatMs: 60_000, concurrency: 1 });
    const job = await create('Take me over');
    await oldAgent.called();

    // The lease runs out; another worker reclaims the job and runs attempt 2.
    await expireLease(t.db, job.id);
    const newAgent = fakeAgent(async ({ workspace }) => {
      await workspace.writeFile('new.md', 'from the new attempt\n');
      return { summary: 'new' };
    });
    await startWorker(newAgent);
    const done = await completed(job);
    expect(done).toMatchObject({ summary: 'new' });
    expect(Number((await row(job.id)).attempt)).toBe(2);

    releaseOld();
    await waitFor(
      async () => oldOutcome,
      (outcome) => outcome !== null,
    );
    expect(isLeaseLost(oldOutcome) && oldOutcome.reason).toBe('lost');
    await waitFor(
      async () => old.worker.running,
      (n) => n === 0,
    );
    expect((oldSignal as AbortSignal | null)?.aborted).toBe(true);

    // Nothing of the old attempt reached the job or the repository.
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({ status: 'completed', summary: 'new' });
    const events = await t.store.events.list(job.id, 0, 1000);
    expect(
      events.some((event) => event.type === 'message' && event.data.text === 'old attempt still here'),
    ).toBe(false);
    expect(git(docs.repo, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('new.md');
    expect(git(docs.repo, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('1');
  });

  it('stops its own older attempt when an expired job comes back to it', async () => {
    const signals: AbortSignal[] = [];
    const agent = fakeAgent(async ({ signal }) => {
      signals.push(signal);
      if (signals.length === 1) return untilAborted(signal);
      return { summary: 'second attempt' };
    });
    // A heartbeat too slow to notice: the worker learns of the expiry by claiming the job again.
    await startWorker(agent, { heartbeatMs: 60_000 });
    const job = await create('Come back');
    await waitFor(
      async () => signals.length,
      (n) => n === 1,
    );
    await expireLease(t.db, job.id);
    // Expired leases are looked for at most once a second; the poll would find it, a wake-up is quicker.
    await sleep(1100);
    await t.db.notify('agentjobs_jobs', job.id);
    const done = await completed(job);
    expect(done).toMatchObject({ summary: 'second attempt' });
    expect(signals[0]?.aborted).toBe(true);
    expect(Number((await row(job.id)).attempt)).toBe(2);
  });

  it('on stop lets a job finish within the grace period', async () => {
    const agent = fakeAgent(async () => {
      await sleep(300);
      return { summary: 'finished in time' };
    });
    const running = await startWorker(agent);
    const job = await create('Finish in time');
    await agent.called();
    await running.worker.stop({ graceMs: 5000 });
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({
      status: 'completed',
      summary: 'finished in time',
    });
  });

  it('on stop hands a job that runs past the grace period back, and another worker takes it at once', async () => {
    const slow = fakeAgent(async ({ signal }) => untilAborted(signal));
    const first = await startWorker(slow);
    const job = await create('Outlive the grace');
    await slow.called();
    // The agent runs until aborted: stop resolving at all shows the grace period ended it.
    await first.worker.stop({ graceMs: 200 });
    const released = await row(job.id);
    expect(released).toMatchObject({
      status: 'active',
      phase: 'queued',
      lease_owner: null,
      lease_expires_at: null,
    });
    expect(Number(released.attempt)).toBe(1);
    const events = await t.store.events.list(job.id, 0, 1000);
    expect(events.at(-1)).toMatchObject({ type: 'phase', data: { phase: 'queued', reason: 'released' } });
    expect(fs.readdirSync(path.join(docs.dir, `data-${next}`, 'worktrees'))).toEqual([]);

    const fast = fakeAgent(async () => ({ summary: 'taken over' }));
    await startWorker(fast);
    const done = await completed(job);
    expect(done).toMatchObject({ summary: 'taken over' });
    // The second run got the prompt again: the first never finished with it.
    expect(fast.calls[0]?.prompts).toEqual(['Outlive the grace']);
    expect(Number((await row(job.id)).attempt)).toBe(2);
  });
});
