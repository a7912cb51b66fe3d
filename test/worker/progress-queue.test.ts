import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { isLeaseLost, type Lease, MAX_LOST_ATTEMPTS } from '../../src/store/queue/index.js';
import { endActiveJobs, makeTestJob, openTestStore, type TestStore, testDialects } from '../support/db.js';

// The store's side of taking back a dead worker's jobs and continuing their runs, on every dialect.
describe.each(testDialects())('reclaiming from gone workers and run progress on %s', (dialect) => {
  let t: TestStore;
  let project: Project;
  const leaseMs = 600_000;

  beforeAll(async () => {
    t = await openTestStore(dialect);
    project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
  });
  afterAll(() => t.close());

  const newJob = (prompt = 'Fix the typo') => makeTestJob(t.store, project, prompt);
  const claimOne = async (owner: string): Promise<Lease> => {
    const [claimed] = await t.store.queue.claim({ owner, limit: 1, perProject: 10, leaseMs });
    if (!claimed) throw new Error('nothing claimed');
    return { jobId: claimed.job.id, attempt: claimed.attempt, owner };
  };
  const lostAttempts = async (jobId: string) =>
    (
      await t.db.kysely
        .selectFrom('job_worker_state')
        .select('lost_attempts')
        .where('job_id', '=', jobId)
        .executeTakeFirst()
    )?.lost_attempts;
  const drain = () => endActiveJobs(t.db);

  it('requeues at once the jobs of the named gone workers only, counting a lost attempt', async () => {
    const gone = await newJob('gone');
    const goneLease = await claimOne('dead-worker');
    const alive = await newJob('alive');
    const aliveLease = await claimOne('live-worker');
    expect([goneLease.jobId, aliveLease.jobId]).toEqual([gone.id, alive.id]);

    expect(await t.store.queue.reclaimFromGone([])).toEqual({ requeued: [], failed: [] });
    expect(await t.store.queue.reclaimFromGone(['dead-worker'])).toEqual({ requeued: [gone.id], failed: [] });
    expect(await t.store.jobs.get(project.id, gone.id)).toMatchObject({ status: 'active', phase: 'queued' });
    expect(await t.store.jobs.get(project.id, alive.id)).toMatchObject({
      status: 'active',
      phase: 'preparing',
    });
    expect(await lostAttempts(gone.id)).toBe(1);
    const events = await t.store.events.list(gone.id, 0, 100);
    expect(events.at(-1)).toMatchObject({
      type: 'phase',
      data: { phase: 'queued', reason: 'worker_gone', attempt: 1 },
    });
    // The dead worker's fenced writes fail; the live one's go on.
    const late = await t.store.queue.heartbeat(goneLease, leaseMs).catch((error: unknown) => error);
    expect(isLeaseLost(late)).toBe(true);
    await t.store.queue.heartbeat(aliveLease, leaseMs);
    // Asked again (a second worker starting at the same moment): nothing more happens.
    expect(await t.store.queue.reclaimFromGone(['dead-worker'])).toEqual({ requeued: [], failed: [] });
    await drain();
  });

  it('requeues without counting a lost attempt the jobs of a worker a person stopped at once', async () => {
    const job = await newJob();
    for (let attempt = 1; attempt <= MAX_LOST_ATTEMPTS + 1; attempt++) {
      await claimOne(`stopped-${attempt}`);
      const result = await t.store.queue.reclaimFromGone([`stopped-${attempt}`], { counted: false });
      expect(result).toEqual({ requeued: [job.id], failed: [] });
    }
    expect(await lostAttempts(job.id)).toBe(0);
    await drain();
  });

  it(`fails a job whose workers die ${MAX_LOST_ATTEMPTS} times without progress`, async () => {
    const job = await newJob();
    for (let attempt = 1; attempt <= MAX_LOST_ATTEMPTS; attempt++) {
      await claimOne(`dead-${attempt}`);
      const result = await t.store.queue.reclaimFromGone([`dead-${attempt}`]);
      expect(result.failed).toEqual(attempt < MAX_LOST_ATTEMPTS ? [] : [job.id]);
    }
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({
      status: 'failed',
      error: { code: 'worker_lost' },
    });
  });

  it('saves progress fenced, clears the lost attempts with it, and forgets it when the run ends', async () => {
    const job = await newJob();
    const first = await claimOne('w1');
    expect(await t.store.queue.progress(job.id)).toBeNull();
    const changes = {
      head: 'a'.repeat(40),
      written: [{ path: 'a.md', mode: '100644', sha: 'b'.repeat(40) }],
      deleted: [],
    };
    await t.store.queue.saveProgress(first, {
      from: 0,
      messages: [JSON.stringify({ role: 'user', content: 'Fix the typo' })],
      deliveredThrough: 'm1',
      changes,
    });
    await t.store.queue.reclaimFromGone(['w1']);
    expect(await lostAttempts(job.id)).toBe(1);
    const second = await claimOne('w2');
    expect(await t.store.queue.progress(job.id)).toMatchObject({
      attempt: first.attempt,
      conversation: [{ role: 'user', content: 'Fix the typo' }],
      deliveredThrough: 'm1',
      changes,
    });
    // The first attempt can no longer write its progress.
    const stale = await t.store.queue
      .saveProgress(first, { from: 0, messages: [], deliveredThrough: null, changes: null })
      .catch((error: unknown) => error);
    expect(isLeaseLost(stale)).toBe(true);
    // The second attempt's progress replaces it, and the run got somewhere: no lost attempts.
    await t.store.queue.saveProgress(second, {
      from: 0,
      messages: [],
      deliveredThrough: 'm1',
      changes: null,
    });
    expect(await t.store.queue.progress(job.id)).toMatchObject({ attempt: second.attempt, changes: null });
    expect(await lostAttempts(job.id)).toBe(0);
    await t.store.queue.fail(second, { code: 'model_error', message: 'no' });
    expect(await t.store.queue.progress(job.id)).toBeNull();

    const other = await newJob();
    const lease = await claimOne('w3');
    expect(lease.jobId).toBe(other.id);
    await t.store.queue.saveProgress(lease, {
      from: 0,
      messages: ['{}'],
      deliveredThrough: null,
      changes: null,
    });
    await t.store.queue.complete(lease, {
      summary: 'ok',
      title: 'T',
      prLink: null,
      usage: { inputTokens: 1, outputTokens: 1, steps: 1 },
      filesChanged: 0,
      headSha: null,
    });
    expect(await t.store.queue.progress(other.id)).toBeNull();
  });

  it('saves a step by appending its messages, and reads back the conversation the record counts', async () => {
    await drain();
    const job = await newJob();
    const lease = await claimOne('w4');
    expect(lease.jobId).toBe(job.id);
    const rows = async () =>
      (
        await t.db.kysely
          .selectFrom('job_progress_messages')
          .select('seq')
          .where('job_id', '=', job.id)
          .execute()
      ).length;
    const json = (...texts: string[]) => texts.map((content) => JSON.stringify({ role: 'user', content }));
    const save = (from: number, messages: string[]) =>
      t.store.queue.saveProgress(lease, { from, messages, deliveredThrough: null, changes: null });
    await save(0, json('a', 'b', 'c'));
    await save(3, json('d'));
    expect((await t.store.queue.progress(job.id))?.conversation).toEqual(
      ['a', 'b', 'c', 'd'].map((content) => ({ role: 'user', content })),
    );
    // The conversation changed below its end and is shorter: the rows past it are not read.
    await save(1, json('B'));
    expect((await t.store.queue.progress(job.id))?.conversation).toEqual([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'B' },
    ]);
    expect(await rows()).toBe(4);
    // Growing again writes over the rows left past the end.
    await save(2, json('C', 'D', 'E'));
    expect((await t.store.queue.progress(job.id))?.conversation).toEqual(
      ['a', 'B', 'C', 'D', 'E'].map((content) => ({ role: 'user', content })),
    );
    // The end of the run removes them all.
    await t.store.queue.fail(lease, { code: 'model_error', message: 'no' });
    expect(await t.store.queue.progress(job.id)).toBeNull();
    expect(await rows()).toBe(0);
  });

  it('records a step in one transaction: its usage, its events numbered in order, and the progress', async () => {
    await drain();
    const job = await newJob();
    const lease = await claimOne('w6');
    expect(lease.jobId).toBe(job.id);
    const before = await t.store.events.list(job.id, 0, 100);
    const writes = vi.spyOn(t.db, 'write');
    try {
      await t.store.queue.recordStep(lease, {
        added: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, steps: 1, costUsd: 0.5 },
        events: [
          { type: 'tool_call', data: { tool: 'write_file', input: { path: 'b.md' } } },
          { type: 'tool_result', data: { tool: 'write_file', ok: true, summary: 'Wrote b.md' } },
          {
            type: 'usage',
            data: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, steps: 1, costUsd: 0.5 },
          },
        ],
        progress: {
          from: 0,
          messages: [JSON.stringify({ role: 'user', content: 'go' })],
          deliveredThrough: 'm1',
          changes: null,
        },
        releaseReservation: false,
      });
      expect(writes).toHaveBeenCalledTimes(1);
    } finally {
      writes.mockRestore();
    }
    const events = (await t.store.events.list(job.id, 0, 100)).slice(before.length);
    const last = before.at(-1)?.seq ?? 0;
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [last + 1, 'tool_call'],
      [last + 2, 'tool_result'],
      [last + 3, 'usage'],
    ]);
    expect(events[1]?.data).toEqual({ tool: 'write_file', ok: true, summary: 'Wrote b.md' });
    // The next event, written on its own, follows them.
    await t.store.queue.appendEvent(lease, 'phase', { phase: 'publishing' });
    expect((await t.store.events.list(job.id, last + 3, 10)).map((event) => event.seq)).toEqual([last + 4]);
    const saved = await t.store.jobs.get(project.id, job.id);
    expect(saved?.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, steps: 1, costUsd: 0.5 });
    expect(await t.store.spend.today(project.id)).toMatchObject({ spentUsd: 0.5 });
    expect(await t.store.queue.progress(job.id)).toMatchObject({
      attempt: lease.attempt,
      conversation: [{ role: 'user', content: 'go' }],
      deliveredThrough: 'm1',
    });
    // A lost lease writes none of it.
    await t.store.queue.reclaimFromGone(['w6']);
    const stale = await t.store.queue
      .recordStep(lease, {
        added: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, steps: 1, costUsd: null },
        events: [{ type: 'usage', data: { inputTokens: 11, outputTokens: 6, steps: 2 } }],
        progress: null,
      })
      .catch((error: unknown) => error);
    expect(isLeaseLost(stale)).toBe(true);
    expect((await t.store.events.list(job.id, last + 4, 10)).map((event) => event.type)).not.toContain(
      'usage',
    );
  });

  it('removes the progress messages of a job archived while it runs', async () => {
    await drain();
    const job = await newJob();
    const lease = await claimOne('w6');
    expect(lease.jobId).toBe(job.id);
    const message = JSON.stringify({ role: 'user', content: 'x' });
    await t.store.queue.saveProgress(lease, {
      from: 0,
      messages: [message],
      deliveredThrough: null,
      changes: null,
    });
    await t.store.jobs.archive(project.id, job.id);
    const rows = await t.db.kysely
      .selectFrom('job_progress_messages')
      .select('seq')
      .where('job_id', '=', job.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('reads a record an older version saved with its conversation in it', async () => {
    await drain();
    const job = await newJob();
    const lease = await claimOne('w5');
    expect(lease.jobId).toBe(job.id);
    const old = {
      attempt: lease.attempt,
      conversation: [{ role: 'user', content: 'x' }],
      deliveredThrough: null,
      changes: null,
      savedAt: new Date().toISOString(),
    };
    await t.db.kysely
      .insertInto('job_worker_state')
      .values({ job_id: job.id, progress: JSON.stringify(old), lost_attempts: 0, updated_at: old.savedAt })
      .onConflict((conflict) => conflict.column('job_id').doUpdateSet({ progress: JSON.stringify(old) }))
      .execute();
    expect(await t.store.queue.progress(job.id)).toEqual(old);
    await drain();
  });
});
