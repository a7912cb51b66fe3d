import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../src/domain/project.js';
import { JOBS_CHANNEL } from '../src/store/channels.js';
import { makeTestJob, openTestStore, type TestStore, testDialects } from './support/db.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A job create on PostgreSQL is round trips, each a wake-up of the server and of the API (issue 25:
// automations create jobs in bursts). Its notifications leave in one statement before the commit,
// and its first event needs no counter update: 8 statements, where there were 10.
describe.skipIf(!testDialects().includes('postgres'))('a job create on PostgreSQL', () => {
  let t: TestStore;
  let project: Project;
  const sent: string[] = [];
  const query = pg.Client.prototype.query;

  beforeAll(async () => {
    t = await openTestStore('postgres');
    project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [config] = args as [string | { text: string }];
      sent.push(typeof config === 'string' ? config : config.text);
      return (query as (...all: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterAll(async () => {
    pg.Client.prototype.query = query;
    await t.close();
  });

  const create = () => makeTestJob(t.store, project, 'Fix the typo');

  it('takes 8 statements, its notifications in one of them', async () => {
    await create();
    sent.length = 0;
    const job = await create();
    expect(sent[0]).toBe('begin');
    expect(sent.at(-1)).toBe('commit');
    expect(sent.filter((text) => text.includes('pg_notify'))).toHaveLength(1);
    expect(sent).toHaveLength(8);
    // The first event is there, numbered 1, and the job's counter agrees.
    expect(await t.store.events.list(job.id, 0, 10)).toMatchObject([{ seq: 1, type: 'status' }]);
    expect((await t.store.events.append(job.id, 'message', { role: 'user', text: 'next' })).seq).toBe(2);
  });

  it('notifies when the write commits, and not at all when it rolls back', async () => {
    const heard: string[] = [];
    const unlisten = await t.db.listen(JOBS_CHANNEL, (payload) => heard.push(payload));
    try {
      await t.db
        .write(async () => {
          await t.db.notify(JOBS_CHANNEL, 'rolled-back');
          throw new Error('no');
        })
        .catch(() => undefined);
      const job = await create();
      for (let waited = 0; !heard.includes(job.id) && waited < 10_000; waited += 50) await sleep(50);
      expect(heard).toContain(job.id);
      expect(heard).not.toContain('rolled-back');
    } finally {
      await unlisten();
    }
  });
});
