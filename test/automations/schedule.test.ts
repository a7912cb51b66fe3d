import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScheduler, type Scheduler } from '../../src/background/scheduler.js';
import { loadConfig } from '../../src/config/config.js';
import type { Project } from '../../src/domain/project.js';
import { createLogger } from '../../src/log.js';
import { triggerAutomation } from '../../src/operations/automations.js';
import { openDb } from '../../src/store/db.js';
import { createStore, type Store } from '../../src/store/store.js';
import { memoryLog } from '../support/app.js';
import { openTestStore, type TestDialect, type TestStore, testDialects } from '../support/db.js';

const config = loadConfig({
  AGENTJOBS_DATA_DIR: join(tmpdir(), 'agentjobs-unused'),
  AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
});

/** A schedule whose time has come: its next time is moved into the past, as after downtime. */
async function dueSchedule(store: Store, project: Project, due: string, cron = '0 9 * * 1') {
  const automation = await store.automations.create({
    projectId: project.id,
    name: 'Weekly sweep',
    enabled: true,
    trigger: { type: 'schedule', cron, timezone: 'UTC' },
    prompt: 'Sweep the docs (run for {{schedule.time}}).',
    group: false,
    draft: false,
    model: null,
    baseRef: null,
    allowedAuthors: [],
  });
  await store.db.kysely
    .updateTable('automations')
    .set({ next_run_at: due })
    .where('id', '=', automation.id)
    .execute();
  return automation;
}

describe.each(testDialects())('the scheduler, on %s', (dialect: TestDialect) => {
  let database: TestStore;
  let project: Project;
  const schedulers: Scheduler[] = [];
  const stores: Store[] = [];
  const logs: string[] = [];

  /** A scheduler with a database connection of its own, as another process would have. */
  function schedulerProcess(): Scheduler {
    const store = createStore(openDb({ url: database.url, poolSize: 3 }));
    stores.push(store);
    const scheduler = createScheduler({
      store,
      config,
      logger: createLogger('debug', memoryLog(logs)),
      pollMs: 3_600_000,
    });
    schedulers.push(scheduler);
    return scheduler;
  }

  beforeEach(async () => {
    database = await openTestStore(dialect);
    project = await database.store.projects.create({ name: 'Docs', repository: '/srv/docs.git' });
  });
  afterEach(async () => {
    for (const scheduler of schedulers.splice(0)) await scheduler.stop();
    for (const store of stores.splice(0)) await store.close();
    await database.close();
  });

  it('runs each time exactly once when two processes race for it', async () => {
    const { store } = database;
    const due = new Date(Date.now() - 30_000).toISOString();
    const automations = [];
    for (let index = 0; index < 12; index++) automations.push(await dueSchedule(store, project, due));
    const [first, second] = [schedulerProcess(), schedulerProcess()];
    await Promise.all([first.start(), second.start()]);
    await Promise.all([first.wake(), second.wake(), first.wake(), second.wake()]);

    for (const automation of automations) {
      const { runs } = await store.automations.runs(automation.id, { limit: 10 });
      expect(runs).toEqual([
        expect.objectContaining({ outcome: 'created', trigger: { type: 'schedule', source: due } }),
      ]);
      const after = await store.automations.get(project.id, automation.id);
      expect(Date.parse(after?.nextRunAt ?? '')).toBeGreaterThan(Date.now());
    }
    const { jobs } = await store.jobs.list(project.id, { limit: 100 });
    expect(jobs).toHaveLength(automations.length);
    for (const job of jobs) {
      expect(job.prompt).toBe(`Sweep the docs (run for ${due}).`);
      expect(job.trigger).toMatchObject({ type: 'schedule', source: due });
    }
  });

  it('after downtime makes one catch-up run, not one per missed time', async () => {
    const { store } = database;
    // Every minute, last run an hour ago: sixty times were missed.
    const due = new Date(Date.now() - 60 * 60_000).toISOString().replace(/\d\d\.\d{3}Z$/, '00.000Z');
    const automation = await dueSchedule(store, project, due, '* * * * *');
    const scheduler = schedulerProcess();
    await scheduler.start();
    await scheduler.wake();
    const { runs } = await store.automations.runs(automation.id, { limit: 100 });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: 'created', trigger: { source: due } });
    const after = await store.automations.get(project.id, automation.id);
    expect(Date.parse(after?.nextRunAt ?? '')).toBeGreaterThan(Date.now() - 1000);
    expect(after?.lastRunAt).not.toBeNull();
  });

  it('leaves a time that has not come, and a disabled schedule, alone', async () => {
    const { store } = database;
    const later = await dueSchedule(store, project, new Date(Date.now() + 3_600_000).toISOString());
    const disabled = await dueSchedule(store, project, new Date(Date.now() - 60_000).toISOString());
    await store.db.kysely
      .updateTable('automations')
      .set({ enabled: 0 })
      .where('id', '=', disabled.id)
      .execute();
    const scheduler = schedulerProcess();
    await scheduler.start();
    for (const automation of [later, disabled]) {
      expect((await store.automations.runs(automation.id, { limit: 10 })).runs).toEqual([]);
    }
  });

  it('fills the schedule placeholders of a run by hand with the time it was run', async () => {
    const { store } = database;
    const automation = await dueSchedule(store, project, new Date(Date.now() + 3_600_000).toISOString());
    const before = Date.now();
    const { job } = await triggerAutomation(
      { store, config, automations: config.automations },
      project.id,
      automation.id,
    );
    const time = /^Sweep the docs \(run for (\S+) \(run by hand\)\)\.$/.exec(job.prompt)?.[1];
    expect(job.prompt).not.toContain('(none)');
    expect(Date.parse(time ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(time ?? '')).toBeLessThanOrEqual(Date.now());
  });
});
