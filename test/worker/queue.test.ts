import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { isLeaseLost, type Lease, LeaseLostError, MAX_LOST_ATTEMPTS } from '../../src/store/queue/index.js';
import { endActiveJobs, expireLease, openTestStore, type TestStore, testDialects } from '../support/db.js';

// The queue at the store level, on every dialect: claim limits, fencing, lost leases, messages.
describe.each(testDialects())('job queue on %s', (dialect) => {
  let t: TestStore;
  let project: Project;
  const lease = { owner: 'w1', leaseMs: 60_000 };

  beforeAll(async () => {
    t = await openTestStore(dialect);
    project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
  });
  afterAll(() => t.close());

  const newProject = () => t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
  const newJob = (projectId = project.id, prompt = 'Fix the typo') =>
    t.store.jobs.create({
      projectId,
      prompt,
      model: 'openai:gpt-5',
      baseRef: 'main',
      repository: '/tmp/docs',
      draft: false,
    });
  const claim = (limit: number, owner = lease.owner, perProject = 2) =>
    t.store.queue.claim({ owner, limit, perProject, leaseMs: lease.leaseMs });
  const leaseOf = (claimed: { job: { id: string }; attempt: number }, owner = lease.owner): Lease => ({
    jobId: claimed.job.id,
    attempt: claimed.attempt,
    owner,
  });
  const expire = (jobId: string) => expireLease(t.db, jobId);
  const drain = () => endActiveJobs(t.db);

  it('reads a failure code this version no longer makes as internal_error', async () => {
    const job = await newJob();
    await t.db.kysely
      .updateTable('jobs')
      .set({ status: 'failed', error_code: 'retired_code', error_message: 'from an older version' })
      .where('id', '=', job.id)
      .execute();
    expect((await t.store.jobs.get(project.id, job.id))?.error).toEqual({
      code: 'internal_error',
      message: 'from an older version',
    });
  });

  it('claims oldest first, raises the attempt, leases to the worker and records the phase', async () => {
    const a = await newJob();
    const b = await newJob();
    const [first, ...rest] = await claim(1);
    expect(rest).toEqual([]);
    expect(first?.job).toMatchObject({ id: a.id, status: 'active', phase: 'preparing' });
    expect(first?.attempt).toBe(1);
    const row = await t.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(row.lease_owner).toBe('w1');
    expect(Date.parse(row.lease_expires_at ?? '')).toBeGreaterThan(Date.now() + 50_000);
    const events = await t.store.events.list(a.id, 0, 10);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['status', { status: 'active', phase: 'queued' }],
      ['phase', { phase: 'preparing', attempt: 1 }],
    ]);
    expect((await claim(5)).map((c) => c.job.id)).toEqual([b.id]);
    await drain();
  });

  it('runs at most `perProject` jobs of a project at once, in one claim and across claims', async () => {
    const busy = await newProject();
    const other = await newProject();
    const jobs = [
      await newJob(busy.id),
      await newJob(busy.id),
      await newJob(busy.id),
      await newJob(other.id),
    ];
    const first = await claim(10);
    // Two of `busy` (the oldest), and the one of `other`; the third of `busy` waits.
    expect(first.map((c) => c.job.id).sort()).toEqual([jobs[0]?.id, jobs[1]?.id, jobs[3]?.id].sort());
    expect(await claim(10, 'w2')).toEqual([]);
    // When one of `busy` ends, the waiting one is claimable.
    const done = first.find((c) => c.job.id === jobs[0]?.id);
    if (!done) throw new Error('unreachable');
    await t.store.queue.fail(leaseOf(done), { code: 'internal_error', message: 'x' });
    expect((await claim(10, 'w2')).map((c) => c.job.id)).toEqual([jobs[2]?.id]);
    await drain();
  });

  it('never hands one job to two concurrent claimers', async () => {
    const many = await newProject();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await newJob(many.id)).id);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(5, `c${i}`, 100)));
    const claimed = results.flat().map((c) => c.job.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.length).toBe(20);
    await drain();
  });

  it('fences every write with the attempt: a taken-over attempt changes nothing and learns it', async () => {
    await newJob();
    const [old] = await claim(1);
    if (!old) throw new Error('no claim');
    await expire(old.job.id);
    expect(await t.store.queue.reclaimExpired()).toEqual({ requeued: [old.job.id], failed: [] });
    const [fresh] = await claim(1, 'w2');
    expect(fresh?.attempt).toBe(2);

    const stale = leaseOf(old);
    const refused = [
      t.store.queue.heartbeat(stale, 1000),
      t.store.queue.setPhase(stale, 'running'),
      t.store.queue.appendEvent(stale, 'message', { role: 'assistant', text: 'stale' }),
      t.store.queue.takePending(stale),
      t.store.queue.release(stale),
      t.store.queue.fail(stale, { code: 'internal_error', message: 'stale' }),
      t.store.queue.complete(stale, {
        summary: 'stale',
        title: null,
        prLink: 'http://stale',
        usage: { inputTokens: 1, outputTokens: 1, steps: 1 },
        filesChanged: 1,
        conversation: [],
        deliveredThrough: null,
        headSha: null,
      }),
    ];
    for (const settled of await Promise.allSettled(refused)) {
      expect(settled.status).toBe('rejected');
      const error = (settled as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(LeaseLostError);
      expect((error as LeaseLostError).reason).toBe('lost');
    }
    const job = await t.store.jobs.get(project.id, old.job.id);
    expect(job).toMatchObject({ status: 'active', phase: 'preparing', prLink: null, summary: null });
    const events = await t.store.events.list(old.job.id, 0, 100);
    expect(events.some((event) => event.type === 'message' && event.data.text === 'stale')).toBe(false);
    // The new attempt writes fine.
    await t.store.queue.setPhase(leaseOf(fresh as never, 'w2'), 'running');
    await drain();
  });

  it(`fails a job with worker_lost after ${MAX_LOST_ATTEMPTS} lost attempts`, async () => {
    const job = await newJob();
    for (let attempt = 1; attempt <= MAX_LOST_ATTEMPTS; attempt++) {
      const [claimed] = await claim(1, `w${attempt}`);
      expect(claimed?.attempt).toBe(attempt);
      await expire(job.id);
      const result = await t.store.queue.reclaimExpired();
      expect(result).toEqual(
        attempt < MAX_LOST_ATTEMPTS ? { requeued: [job.id], failed: [] } : { requeued: [], failed: [job.id] },
      );
    }
    const failed = await t.store.jobs.get(project.id, job.id);
    expect(failed).toMatchObject({ status: 'failed', phase: null, error: { code: 'worker_lost' } });
    expect(failed?.completedAt).not.toBeNull();
    const types = (await t.store.events.list(job.id, 0, 100)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['error', 'status']);
    // A follow-up starts a fresh count.
    await t.store.jobs.followUp(project.id, job.id, 'try again');
    const [again] = await claim(1);
    await expire(job.id);
    expect((await t.store.queue.reclaimExpired()).requeued).toEqual([job.id]);
    expect(again?.attempt).toBe(MAX_LOST_ATTEMPTS + 1);
    await drain();
  });

  it('reports an archived job as archived to its worker', async () => {
    const job = await newJob();
    const [claimed] = await claim(1);
    await t.store.jobs.archive(project.id, job.id);
    const error = await t.store.queue.heartbeat(leaseOf(claimed as never), 1000).catch((caught) => caught);
    expect(isLeaseLost(error) && error.reason).toBe('archived');
  });

  it('hands a run the messages its saved conversation does not cover, again after a lost run', async () => {
    const job = await newJob(project.id, 'first prompt');
    const [one] = await claim(1);
    const first = leaseOf(one as never);
    expect((await t.store.queue.takePrompts(first)).map((p) => p.content)).toEqual(['first prompt']);
    expect(await t.store.queue.takePending(first)).toEqual([]);
    await t.store.jobs.followUp(project.id, job.id, 'while running');
    expect((await t.store.queue.takePending(first)).map((p) => p.content)).toEqual(['while running']);
    // The run dies: the next attempt gets both prompts again.
    await expire(job.id);
    await t.store.queue.reclaimExpired();
    const [two] = await claim(1);
    const second = leaseOf(two as never);
    const prompts = await t.store.queue.takePrompts(second);
    expect(prompts.map((p) => p.content)).toEqual(['first prompt', 'while running']);
    const outcome = await t.store.queue.complete(second, {
      summary: 'ok',
      title: 'T',
      prLink: null,
      usage: { inputTokens: 3, outputTokens: 2, steps: 1 },
      filesChanged: 0,
      conversation: [{ role: 'user', content: 'first prompt' }],
      deliveredThrough: prompts.at(-1)?.id ?? null,
      headSha: null,
    });
    expect(outcome).toBe('completed');
    expect(await t.store.queue.conversation(job.id)).toEqual([{ role: 'user', content: 'first prompt' }]);
    // A follow-up's run gets only the new message.
    await t.store.jobs.followUp(project.id, job.id, 'next');
    const [three] = await claim(1);
    expect((await t.store.queue.takePrompts(leaseOf(three as never))).map((p) => p.content)).toEqual([
      'next',
    ]);
    await drain();
  });

  it('requeues instead of completing when a follow-up waits, keeping the outcome so far', async () => {
    const job = await newJob();
    const [claimed] = await claim(1);
    const current = leaseOf(claimed as never);
    await t.store.queue.takePrompts(current);
    await t.store.jobs.followUp(project.id, job.id, 'one more thing');
    const outcome = await t.store.queue.complete(current, {
      summary: 'first part',
      title: 'T',
      prLink: 'http://pr/1',
      usage: { inputTokens: 3, outputTokens: 2, steps: 1 },
      filesChanged: 1,
      conversation: [],
      deliveredThrough: null,
      headSha: 'abc',
    });
    expect(outcome).toBe('requeued');
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({
      status: 'active',
      phase: 'queued',
      prLink: 'http://pr/1',
      usage: { inputTokens: 3, outputTokens: 2, steps: 1 },
    });
    expect(await t.store.queue.headSha(job.id)).toBe('abc');
    await drain();
  });

  it('records that the pull request was opened as a draft on the job', async () => {
    const job = await newJob();
    expect(job.draft).toBe(false);
    const [claimed] = await claim(1);
    const current = leaseOf(claimed as never);
    await t.store.queue.takePrompts(current);
    const outcome = await t.store.queue.complete(current, {
      summary: 'done',
      title: 'T',
      prLink: 'http://pr/1',
      usage: { inputTokens: 1, outputTokens: 1, steps: 1 },
      filesChanged: 1,
      conversation: [],
      deliveredThrough: null,
      headSha: 'abc',
      draft: true,
    });
    expect(outcome).toBe('completed');
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({ status: 'completed', draft: true });
    await drain();
  });

  it('releases a lease without counting it lost, claimable at once', async () => {
    const job = await newJob();
    const [claimed] = await claim(1);
    await t.store.queue.release(leaseOf(claimed as never));
    const row = await t.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ phase: 'queued', lease_owner: null, lease_expires_at: null, attempt: 1 });
    const [again] = await claim(1, 'w2');
    expect(again).toMatchObject({ attempt: 2, job: { id: job.id } });
    await drain();
  });

  it('notifies listeners when a job is created or followed up, only after commit', async () => {
    const heard: string[] = [];
    const unlisten = await t.db.listen('agentjobs_jobs', (payload) => heard.push(payload));
    try {
      const job = await newJob();
      await waitUntil(() => heard.includes(job.id));
      // A rolled-back transaction notifies nobody.
      await t.db
        .write(async () => {
          await t.db.notify('agentjobs_jobs', 'rolled-back');
          throw new Error('roll back');
        })
        .catch(() => {});
      await t.db.notify('agentjobs_jobs', 'direct');
      await waitUntil(() => heard.includes('direct'));
      expect(heard).not.toContain('rolled-back');
    } finally {
      await unlisten();
    }
    await drain();
  });

  it('renews the leases of many runs in one call and names those that no longer hold', async () => {
    await drain();
    const other = await newProject();
    for (let n = 0; n < 3; n++) await newJob(other.id);
    const claimed = await claim(3, lease.owner, 3);
    expect(claimed).toHaveLength(3);
    const [held, archived, lost] = claimed.map((job) => leaseOf(job)) as [Lease, Lease, Lease];
    await t.store.jobs.archive(other.id, archived.jobId);
    const stale = { ...lost, attempt: lost.attempt + 1 };
    expect(await t.store.queue.renewLeases(lease.owner, [held, archived, stale], 60_000)).toEqual([
      { lease: archived, reason: 'archived' },
      { lease: stale, reason: 'lost' },
    ]);
    await drain();
  });

  it('tells waiting jobs once why they wait', async () => {
    await drain();
    const waiting = await newJob();
    const note = () => t.store.queue.noteWaiting('capacity', 'Waiting for a free worker slot.');
    expect(await note()).toBe(1);
    expect(await note()).toBe(0);
    const events = await t.store.events.list(waiting.id, 0, 100);
    expect(events.filter((event) => event.type === 'phase' && event.data.reason === 'capacity')).toHaveLength(
      1,
    );
    expect(events.at(-1)?.data).toEqual({
      phase: 'queued',
      reason: 'capacity',
      message: 'Waiting for a free worker slot.',
    });
    await drain();
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
