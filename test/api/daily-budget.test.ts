import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';

describe.each(testDialects())('the daily budget of a project on %s', (dialect) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const create = () =>
    t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/job`,
      headers: { authorization: `Bearer ${t.key}` },
      payload: { prompt: 'Fix the typos' },
    });
  const followUp = (jobId: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/job/${jobId}/message`,
      headers: { authorization: `Bearer ${t.key}` },
      payload: { prompt: 'And the headings' },
    });
  const spend = (costUsd: number) =>
    t.database.db.kysely
      .insertInto('project_daily_spend')
      .values({ project_id: t.project.id, day: new Date().toISOString().slice(0, 10), cost_usd: costUsd })
      .execute();

  it('refuses new runs with 429 budget_exceeded until the end of the UTC day', async () => {
    t = await startTestApp(dialect);
    await t.store.projects.update(t.project.id, { dailyBudgetUsd: 5 });
    const first = await create();
    expect(first.statusCode).toBe(201);
    const active = first.json().id as string;
    // Yesterday's spend does not count.
    await t.database.db.kysely
      .insertInto('project_daily_spend')
      .values({ project_id: t.project.id, day: '2000-01-01', cost_usd: 100 })
      .execute();
    expect((await create()).statusCode).toBe(201);

    await spend(5.25);
    const refused = await create();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'budget_exceeded' });
    expect(refused.json().error).toContain('$5.25 of its daily budget of $5.00');
    const now = new Date();
    const toMidnight =
      (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - toMidnight)).toBeLessThan(60);

    // A follow-up to a running job joins its run; one that would start a new run is refused.
    expect((await followUp(active)).statusCode).toBe(200);
    await t.database.db.kysely
      .updateTable('jobs')
      .set({ status: 'failed', phase: null })
      .where('id', '=', active)
      .execute();
    const again = await followUp(active);
    expect(again.statusCode).toBe(429);
    expect(again.json().code).toBe('budget_exceeded');

    // Raising the budget lets runs start again at once.
    await t.store.projects.update(t.project.id, { dailyBudgetUsd: 10 });
    expect((await create()).statusCode).toBe(201);
  });

  it('does not limit a project without a budget', async () => {
    t = await startTestApp(dialect);
    await spend(1000);
    expect((await create()).statusCode).toBe(201);
  });
});
