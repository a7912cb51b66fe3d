import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { createStore } from '../../src/store/store.js';
import { testDialects } from '../support/db.js';
import { heldUntil } from '../support/scripted-model.js';
import { scriptedServer } from '../support/scripted-server.js';

const DRAIN_SECONDS = 4;

// SIGTERM during a job, on the built `agentjobs serve`: the port keeps answering for the drain,
// readiness says 503 at once, new work gets 503 with Retry-After, reads go on; the job is handed
// back for another process (its model never answers within the grace period), not lost.
describe.each(testDialects())('agentjobs serve draining on SIGTERM on %s', (dialect) => {
  it('answers readiness 503 at once, refuses creates and follow-ups, serves reads, then closes', {
    timeout: 90_000,
  }, async () => {
    const scripted = await scriptedServer({
      name: 'draining',
      dialect,
      env: { AGENTJOBS_DRAIN_SECONDS: String(DRAIN_SECONDS), AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '1' },
    });
    const { server, model, api } = scripted;
    try {
      model.setScript([heldUntil(new Promise<void>(() => {}), { text: 'never' })]);
      const created = await api.call('POST', '/job', { prompt: 'Add a page' });
      expect(created.status).toBe(201);
      const jobId = created.job.id;
      while (model.requests.length === 0) await sleep(50);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      server.child.kill('SIGTERM');
      const stoppedAt = Date.now();
      // At once: the first answer after the signal already says so.
      let ready = await fetch(`${server.url}/readyz`);
      for (let tries = 0; ready.status === 200 && tries < 20; tries++) {
        await sleep(25);
        ready = await fetch(`${server.url}/readyz`);
      }
      expect(ready.status).toBe(503);
      expect(Date.now() - stoppedAt).toBeLessThan(1000);
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(await ready.json()).toMatchObject({ ready: false, reason: 'draining' });

      const refused = await fetch(`${server.url}/v2/agent/${scripted.projectId}/job`, {
        method: 'POST',
        headers: { authorization: `Bearer ${scripted.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'One more' }),
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ code: 'unavailable' });
      const followUp = await api.call('POST', `/job/${jobId}/message`, { prompt: 'And another' });
      expect(followUp.status).toBe(503);

      const read = await api.call('GET', `/job/${jobId}`);
      expect(read.status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

      // Then it closes, after the drain: not before, and within the drain and the exit margin.
      expect(await server.exited).toBe(0);
      const stoppedAfterMs = Date.now() - stoppedAt;
      expect(stoppedAfterMs).toBeGreaterThanOrEqual(DRAIN_SECONDS * 1000 - 200);
      expect(stoppedAfterMs).toBeLessThan((DRAIN_SECONDS + 5) * 1000);

      // Handed back: queued again, no lease, for the next process to resume.
      const url = scripted.env.DATABASE_URL ?? `sqlite:${scripted.env.AGENTJOBS_DATA_DIR}/agentjobs.db`;
      const store = createStore(openDb({ url }));
      try {
        const row = await store.db.kysely
          .selectFrom('jobs')
          .selectAll()
          .where('id', '=', jobId)
          .executeTakeFirstOrThrow();
        expect(row).toMatchObject({ status: 'active', phase: 'queued', lease_owner: null });
        const { jobs } = await store.jobs.list(scripted.projectId, { limit: 10 });
        expect(jobs.map((job) => job.id)).toEqual([jobId]);
      } finally {
        await store.close();
      }
    } finally {
      await scripted.close();
    }
  });
});
