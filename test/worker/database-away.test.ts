import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import {
  fakeAgent,
  makeRepo,
  startTestWorker,
  type TestWorker,
  tempDir,
  testConfig,
  waitFor,
} from '../support/worker.js';

// A statement that fails because the database went away under a run (a restart, a failover) is no
// fault of the job: the run hands the job back, and the next attempt completes it.
describe.each(testDialects())('a run whose database goes away, on %s', (dialect) => {
  let t: TestStore;
  let dir: string;
  let repo: string;
  let project: Project;
  let running: TestWorker;
  const agent = fakeAgent();

  beforeAll(async () => {
    t = await openTestStore(dialect);
    dir = tempDir('database-away');
    ({ repo } = makeRepo(dir));
    project = await t.store.projects.create({ name: 'Docs', repository: repo });
    running = await startTestWorker({ config: testConfig(path.join(dir, 'data')), store: t.store, agent });
  });
  afterAll(async () => {
    await running?.worker.stop({ graceMs: 0 });
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

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
    const job = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Add an FAQ page',
      model: 'openai:fake',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    const done = await waitFor(
      () => t.store.jobs.get(project.id, job.id),
      (current) => current?.status !== 'active',
      { timeoutMs: 20_000 },
    );

    expect(done).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
    expect(runs).toBe(2);
    const events = await t.store.events.list(job.id, 0, 1000);
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.some((event) => event.type === 'phase' && event.data.reason === 'released')).toBe(true);
  });
});
