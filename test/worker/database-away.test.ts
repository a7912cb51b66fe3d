import { describe, expect, it } from 'vitest';
import { testDialects, testJobInput } from '../support/db.js';
import { useFakeWorker } from '../support/fake-worker.js';
import { partsOf } from '../support/use-fixture.js';
import { fakeAgent, settledJob } from '../support/worker.js';

// A statement that fails because the database went away under a run (a restart, a failover) is no
// fault of the job: the run hands the job back, and the next attempt completes it.
describe.each(testDialects())('a run whose database goes away, on %s', (dialect) => {
  const agent = fakeAgent();
  const bench = useFakeWorker({ name: 'database-away', dialect, agent });
  const { t, project } = partsOf(bench, 't', 'project');

  it('hands the job back instead of failing it, and the next attempt completes it', async () => {
    let runs = 0;
    agent.setScript(async ({ workspace }) => {
      runs++;
      // What the dialect throws when the database cannot answer for a moment: pg for a statement
      // whose connection a restart closed, SQLite for a file held past the busy timeout.
      if (runs === 1) {
        throw dialect === 'postgres'
          ? new Error('Connection terminated unexpectedly')
          : Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }
      await workspace.writeFile('docs/faq.md', '# FAQ\n');
      return { summary: 'Add an FAQ page' };
    });
    const job = await t.store.jobs.create(testJobInput(project, 'Add an FAQ page', { model: 'openai:fake' }));
    const done = await settledJob(t.store, project.id, job.id, 20_000);

    expect(done).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
    expect(runs).toBe(2);
    const events = await t.store.events.list(job.id, 0, 1000);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.some((event) => event.type === 'phase' && event.data.reason === 'released')).toBe(true);
  });
});
