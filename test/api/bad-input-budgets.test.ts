// The project's budgets refusing creates: 429 when the hourly budget or the active-job cap is spent.
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/app.js';
import { bearer, create, get, jobs } from '../support/bad-input-fixture.js';
import { testDialects } from '../support/db.js';

describe.each(testDialects())('budgets on %s', (dialect) => {
  it('429 rate_limited with Retry-After and RateLimit headers when the hourly budget is spent', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_RATE_LIMIT_PER_HOUR: '2' });
    try {
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await t.app.inject(create(t, { prompt: `p${i}` }))).statusCode);
      expect(statuses).toEqual([201, 201]);
      const before = await t.store.jobs.list(t.project.id, { limit: 100 });
      const refused = await t.app.inject(create(t, { prompt: 'one too many' }));
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['ratelimit-limit']).toBe('2');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect((await t.store.jobs.list(t.project.id, { limit: 100 })).jobs).toHaveLength(before.jobs.length);
      // Reads are not part of the budget.
      expect((await t.app.inject(get(t, jobs(t)))).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('429 too_many_active_jobs when the project has too many active jobs', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_MAX_ACTIVE_JOBS: '1' });
    try {
      const first = await t.app.inject(create(t, { prompt: 'busy' }));
      expect(first.statusCode).toBe(201);
      const refused = await t.app.inject(create(t, { prompt: 'waiting' }));
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('too_many_active_jobs');
      expect(refused.headers['retry-after']).toBeDefined();
      // Archiving frees the slot.
      await t.app.inject({
        method: 'POST',
        url: `${jobs(t)}/${first.json().id}/archive`,
        headers: bearer(t.key),
      });
      expect((await t.app.inject(create(t, { prompt: 'now' }))).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('429 too_many_active_jobs holds when creates arrive together', async () => {
    const t = await startTestApp(dialect, { AGENTJOBS_MAX_ACTIVE_JOBS: '3' });
    try {
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => t.app.inject(create(t, { prompt: `together ${i}` }))),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
      const active = await t.store.jobs.list(t.project.id, { status: 'active', limit: 100 });
      expect(active.jobs).toHaveLength(3);
    } finally {
      await t.close();
    }
  });
});
