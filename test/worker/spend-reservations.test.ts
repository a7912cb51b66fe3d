import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { type Lease, LeaseLostError } from '../../src/store/queue/index.js';
import { expireLease, openTestStore, type TestStore, testDialects } from '../support/db.js';

// Reservations against a project's daily budget at the store level, on every dialect (store/spend.ts).
// Amounts are eighths of a dollar, so that their sums are exact in floating point.
describe.each(testDialects())('spend reservations on %s', (dialect) => {
  let t: TestStore;
  const owner = 'w1';

  beforeAll(async () => {
    t = await openTestStore(dialect);
  });
  afterAll(() => t.close());

  /** A project with `budgetUsd` a day and `count` of its jobs claimed, with their leases. */
  async function running(
    budgetUsd: number | null,
    count: number,
  ): Promise<{ project: Project; leases: Lease[] }> {
    const project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
    await t.store.projects.update(project.id, { dailyBudgetUsd: budgetUsd });
    for (let i = 0; i < count; i++) {
      await t.store.jobs.create({
        projectId: project.id,
        prompt: `Run ${i}`,
        model: 'openai:gpt-5',
        baseRef: 'main',
        repository: '/tmp/docs',
        draft: false,
      });
    }
    const claimed = await t.store.queue.claim({ owner, limit: count, perProject: count, leaseMs: 60_000 });
    const leases = claimed
      .filter((claim) => claim.job.projectId === project.id)
      .map((claim) => ({ jobId: claim.job.id, attempt: claim.attempt, owner }));
    expect(leases).toHaveLength(count);
    return { project, leases };
  }
  const today = async (projectId: string) => {
    const row = await t.db.kysely
      .selectFrom('project_daily_spend')
      .select(['cost_usd', 'reserved_usd'])
      .where('project_id', '=', projectId)
      .where('day', '=', new Date().toISOString().slice(0, 10))
      .executeTakeFirst();
    return { spent: Number(row?.cost_usd ?? 0), reserved: Number(row?.reserved_usd ?? 0) };
  };
  const held = (jobIds: string[]) =>
    t.db.kysely.selectFrom('spend_reservations').select('job_id').where('job_id', 'in', jobIds).execute();
  const step = (costUsd: number) => ({
    inputTokens: 10,
    outputTokens: 5,
    cachedInputTokens: 0,
    steps: 1,
    costUsd,
  });

  it('grants while spent plus reserved is under the budget, even when twenty runs ask at once', async () => {
    const { project, leases } = await running(1, 20);
    const answers = await Promise.all(leases.map((lease) => t.store.queue.reserveSpend(lease, 0.125)));
    // Granted at 0, 1/8, …, 7/8 reserved; from 8/8 on, refused.
    expect(answers.filter((answer) => answer.granted)).toHaveLength(8);
    expect(await today(project.id)).toEqual({ spent: 0, reserved: 1 });
    expect(await held(leases.map((lease) => lease.jobId))).toHaveLength(8);
    for (const answer of answers.filter((answer) => !answer.granted))
      expect(answer).toEqual({ granted: false, spentUsd: 0, reservedUsd: 1, budgetUsd: 1 });

    // Each settled step gives its reservation back and adds its real cost.
    const granted = leases.filter((_, index) => answers[index]?.granted);
    for (const lease of granted) await t.store.queue.recordUsage(lease, step(0.0625), []);
    expect(await today(project.id)).toEqual({ spent: 0.5, reserved: 0 });
    expect(await held(leases.map((lease) => lease.jobId))).toEqual([]);
  });

  it('lets a run hold one reservation, which its next one replaces', async () => {
    const { project, leases } = await running(1, 1);
    const [lease] = leases as [Lease];
    expect((await t.store.queue.reserveSpend(lease, 0.5)).granted).toBe(true);
    // A step tried again (after a model outage) reserves again, in place of the first try.
    expect(await t.store.queue.reserveSpend(lease, 0.75)).toEqual({
      granted: true,
      spentUsd: 0,
      reservedUsd: 0.75,
      budgetUsd: 1,
    });
    expect(await today(project.id)).toEqual({ spent: 0, reserved: 0.75 });
  });

  it('gives a reservation back when the run ends, is archived or its lease is reclaimed', async () => {
    const { project, leases } = await running(10, 5);
    const [failed, completed, released, archived, lost] = leases as [Lease, Lease, Lease, Lease, Lease];
    for (const lease of leases) expect((await t.store.queue.reserveSpend(lease, 1)).granted).toBe(true);
    expect(await today(project.id)).toEqual({ spent: 0, reserved: 5 });

    await t.store.queue.fail(failed, { code: 'model_error', message: 'The model failed.' });
    await t.store.queue.complete(completed, {
      summary: 'Done',
      title: null,
      prLink: null,
      usage: step(0.25),
      filesChanged: 0,
      conversation: [],
      deliveredThrough: null,
      headSha: null,
    });
    await t.store.queue.release(released);
    await t.store.jobs.archive(project.id, archived.jobId);
    // A worker that died: its lease runs out and another worker's reclaim requeues the job.
    await expireLease(t.db, lost.jobId);
    expect((await t.store.queue.reclaimExpired()).requeued).toContain(lost.jobId);

    expect(await today(project.id)).toEqual({ spent: 0.25, reserved: 0 });
    expect(await held(leases.map((lease) => lease.jobId))).toEqual([]);
    // The lost run can no longer reserve; the next attempt can.
    await expect(t.store.queue.reserveSpend(lost, 1)).rejects.toBeInstanceOf(LeaseLostError);
    // (The released job is back in the queue too.)
    const claimed = await t.store.queue.claim({ owner, limit: 5, perProject: 5, leaseMs: 60_000 });
    const again = claimed.find((claim) => claim.job.id === lost.jobId);
    expect(again?.attempt).toBe(lost.attempt + 1);
    const next = { jobId: lost.jobId, attempt: again?.attempt ?? 0, owner };
    expect((await t.store.queue.reserveSpend(next, 1)).granted).toBe(true);
  });

  it('refuses once the day is spent, and reserves nothing for a project without a budget', async () => {
    const spent = await running(0.5, 1);
    const [lease] = spent.leases as [Lease];
    expect((await t.store.queue.reserveSpend(lease, 0.25)).granted).toBe(true);
    await t.store.queue.recordUsage(lease, step(0.5), []);
    expect(await t.store.queue.reserveSpend(lease, 0.001)).toEqual({
      granted: false,
      spentUsd: 0.5,
      reservedUsd: 0,
      budgetUsd: 0.5,
    });

    const free = await running(null, 1);
    const [unlimited] = free.leases as [Lease];
    expect(await t.store.queue.reserveSpend(unlimited, 100)).toEqual({
      granted: true,
      spentUsd: 0,
      reservedUsd: 0,
      budgetUsd: null,
    });
    expect(await held([unlimited.jobId])).toEqual([]);
  });

  it('writes nothing for a step of a project without a budget, and reserves with one', async () => {
    const free = await running(null, 1);
    const budgeted = await running(1, 1);
    const writes = vi.spyOn(t.db, 'write');
    try {
      const [unlimited] = free.leases as [Lease];
      for (let i = 0; i < 3; i++)
        expect((await t.store.queue.reserveSpend(unlimited, 0.125)).granted).toBe(true);
      expect(writes).not.toHaveBeenCalled();
      expect(await held([unlimited.jobId])).toEqual([]);
      expect(await today(free.project.id)).toEqual({ spent: 0, reserved: 0 });

      const [limited] = budgeted.leases as [Lease];
      expect((await t.store.queue.reserveSpend(limited, 0.125)).granted).toBe(true);
      expect(writes).toHaveBeenCalledTimes(1);
      expect(await held([limited.jobId])).toEqual([{ job_id: limited.jobId }]);
      expect(await today(budgeted.project.id)).toEqual({ spent: 0, reserved: 0.125 });
    } finally {
      writes.mockRestore();
    }
  });

  it('holds a run to a budget set while it runs, from its next step', async () => {
    const { project, leases } = await running(null, 1);
    const [lease] = leases as [Lease];
    expect((await t.store.queue.reserveSpend(lease, 0.25)).budgetUsd).toBeNull();
    await t.store.projects.update(project.id, { dailyBudgetUsd: 0.125 });
    expect(await t.store.queue.reserveSpend(lease, 0.25)).toEqual({
      granted: true,
      spentUsd: 0,
      reservedUsd: 0.25,
      budgetUsd: 0.125,
    });
    expect(await held([lease.jobId])).toEqual([{ job_id: lease.jobId }]);
  });
});
