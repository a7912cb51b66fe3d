/**
 * One event, one run, however it fails (docs/security.md, "One event, one run"): text from outside
 * is made safe and cut rather than refused; a refusal is a recorded run that is never tried again
 * and spends none of the day's runs; an event that keeps failing ends in failed runs after a
 * bounded number of tries; an automation's run for one event is written once (a unique key); a
 * change that made no job gives its head back; the same comment delivered again is a duplicate;
 * grouped runs keep the follow-up's rules. Real SQLite and PostgreSQL, real git, the receiver over
 * real HTTP with GitHub's signature.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { createHostEventDispatcher, MAX_TRIES } from '../../src/background/host-events.js';
import { loadConfig } from '../../src/config/config.js';
import type { AutomationTrigger } from '../../src/domain/automation.js';
import { isAppError } from '../../src/domain/errors.js';
import type { HostEvent, ReceivedHostEvent } from '../../src/domain/host-event.js';
import { changeBetween } from '../../src/git/change.js';
import { createLogger } from '../../src/log.js';
import { triggerAutomation } from '../../src/operations/automations.js';
import { createJob } from '../../src/operations/create-job.js';
import { type HostEventDeps, processHostEvent } from '../../src/operations/host-events.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';
import { git, write } from '../support/workspace-fixture.js';

const configWith = (env: Record<string, string> = {}) =>
  loadConfig({
    AGENTJOBS_DATA_DIR: join(tmpdir(), 'agentjobs-unused'),
    AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
    ...env,
  });
const config = configWith();
const logger = createLogger('silent');

let deliveries = 0;
const receivedOf = (projectId: string, event: HostEvent): ReceivedHostEvent => ({
  id: `one-event-${++deliveries}`,
  projectId,
  host: 'github',
  deliveryId: `one-event-delivery-${deliveries}`,
  event,
  receivedAt: new Date().toISOString(),
});

const commentOn = (body: string, number = 12): HostEvent => ({
  kind: 'comment',
  repository: { kind: 'content' },
  target: { type: 'issue', number, url: `https://github.com/acme/docs/issues/${number}`, title: 'Build' },
  body,
  author: 'maintainer',
  url: `https://github.com/acme/docs/issues/${number}#issuecomment-${++deliveries}`,
});

describe.each(testDialects())('one event, one run, on %s', (dialect) => {
  let database: TestStore;
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-one-event-'));

  beforeAll(async () => {
    database = await openTestStore(dialect);
  });
  afterAll(async () => {
    await database?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function projectWith(
    trigger: AutomationTrigger,
    extra: { prompt?: string; group?: boolean; baseRef?: string | null; repository?: string } = {},
  ) {
    const project = await database.store.projects.create({
      name: 'Docs',
      repository: extra.repository ?? '/srv/docs.git',
    });
    const automation = await database.store.automations.create({
      projectId: project.id,
      name: 'Watch',
      enabled: true,
      trigger,
      prompt: extra.prompt ?? 'Asked by {{comment.author}}:\n{{comment.body}}',
      group: extra.group ?? false,
      draft: false,
      model: null,
      baseRef: extra.baseRef ?? null,
      // Named, so that no host is asked whether the comment's author may write.
      allowedAuthors: ['maintainer'],
    });
    return { project, automation };
  }

  const runsOf = async (automationId: string) =>
    (await database.store.automations.runs(automationId, { limit: 50 })).runs.reverse();
  const jobsOf = async (projectId: string) => (await database.store.jobs.list(projectId, { limit: 50 })).jobs;

  it('makes one job of a comment with control characters, however often the dispatcher passes', async () => {
    const { project, automation } = await projectWith({ type: 'comment' });
    // Pasted terminal output: an escape sequence, a bell and a form feed.
    const body = '@agentjobs the build prints \x1b[31mERROR\x1b[0m\x07 then\x0cstops';
    await database.store.hostEvents.record({
      projectId: project.id,
      host: 'github',
      deliveryId: 'terminal-output',
      event: commentOn(body),
    });
    let clock = new Date();
    const dispatcher = createHostEventDispatcher({
      store: database.store,
      logger,
      config,
      now: () => clock,
    });
    await dispatcher.start();
    try {
      for (let pass = 0; pass < 6; pass++) {
        await dispatcher.wake();
        clock = new Date(clock.getTime() + 10 * 60_000);
      }
    } finally {
      await dispatcher.stop();
    }
    const jobs = await jobsOf(project.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.prompt).toContain('prints ␛[31mERROR␛[0m␇ then␌stops');
    expect((await runsOf(automation.id)).map((run) => [run.outcome, run.reason])).toEqual([
      ['created', null],
    ]);
    expect((await database.store.hostEvents.list(project.id))[0]?.processedAt).not.toBeNull();
  });

  it('ends an event that fails on every try in a failed run with the reason, after a bounded number of tries', async () => {
    const { project, automation } = await projectWith({ type: 'comment' });
    await database.store.hostEvents.record({
      projectId: project.id,
      host: 'github',
      deliveryId: 'always-failing',
      event: commentOn('@agentjobs document the limits'),
    });
    // The project cannot be read: every try of the event fails before any automation runs.
    const broken: Store = {
      ...database.store,
      projects: {
        ...database.store.projects,
        get: async () => {
          throw new Error('the projects table is out of reach');
        },
      },
    };
    let clock = new Date();
    const dispatcher = createHostEventDispatcher({ store: broken, logger, config, now: () => clock });
    await dispatcher.start();
    try {
      for (let pass = 0; pass < MAX_TRIES + 4; pass++) {
        await dispatcher.wake();
        clock = new Date(clock.getTime() + 60 * 60_000);
      }
    } finally {
      await dispatcher.stop();
    }
    const runs = await runsOf(automation.id);
    expect(runs).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        reason: 'error',
        detail: 'the projects table is out of reach',
        jobId: null,
      }),
    ]);
    expect(await jobsOf(project.id)).toEqual([]);
    expect((await database.store.hostEvents.list(project.id))[0]?.processedAt).not.toBeNull();
  });

  it("writes an automation's run for one event once: a second try of the event makes no second job", async () => {
    const { project, automation } = await projectWith({ type: 'comment' });
    const deps: HostEventDeps = { store: database.store, config, automations: config.automations };
    const received = receivedOf(project.id, commentOn('@agentjobs add a FAQ'));
    const first = await processHostEvent(deps, received);
    // The same event again, as after a process died before marking it processed.
    const again = await processHostEvent(deps, received);
    expect(first.runs).toEqual([expect.objectContaining({ outcome: 'created' })]);
    expect(again.runs).toEqual(first.runs);
    expect(await jobsOf(project.id)).toHaveLength(1);
    expect(await runsOf(automation.id)).toHaveLength(1);

    // The key itself: a run begun for the event cannot be begun or recorded twice.
    const start = { automation, trigger: { type: 'comment' as const, source: 'x' }, hostEventId: 'evt-1' };
    const begun = await database.store.automations.beginRun(start);
    expect(begun.started).toBe(true);
    expect(await database.store.automations.beginRun(start)).toEqual({ started: false, run: null });
    const settled = await database.store.automations.recordRun({
      ...start,
      outcome: 'skipped',
      reason: 'no_change',
      jobId: null,
    });
    expect(
      await database.store.automations.recordRun({ ...start, outcome: 'created', reason: null, jobId: null }),
    ).toEqual(settled);
    expect(await runsOf(automation.id)).toHaveLength(2);
  });

  it('covers a commit adding 5,000 files and a form feed, and gives back the head of a change that made no job', async () => {
    const dir = join(root, 'product');
    mkdirSync(dir);
    await git(dir, 'init', '--quiet', '--initial-branch=main');
    write(dir, 'src/cli.ts', 'export const flags = [];\n');
    await git(dir, 'add', '.');
    await git(dir, 'commit', '--quiet', '-m', 'First version');
    const head0 = await git(dir, 'rev-parse', 'HEAD');
    for (let index = 0; index < 5000; index++) {
      write(dir, `docs/generated/page-${String(index).padStart(4, '0')}.md`, `# Page ${index}\n`);
    }
    write(dir, 'src/old.c', 'int main(void) {}\n\x0c\n/* next page */\n');
    await git(dir, 'add', '.');
    await git(dir, 'commit', '--quiet', '-m', 'Generate the pages');
    const head1 = await git(dir, 'rev-parse', 'HEAD');

    const { project, automation } = await projectWith(
      { type: 'code_change', repository: 'product', branch: 'main', paths: null },
      {
        prompt:
          'From {{change.from}} to {{change.to}}\n{{change.commits}}\n{{change.files}}\n{{change.diff}}',
        // A base no job can be made on: the first change is refused.
        baseRef: '-bad',
      },
    );
    await database.store.automations.seedHead(automation.id, head0);
    const deps: HostEventDeps = {
      store: database.store,
      config,
      automations: config.automations,
      readChange: (_projectId, _repository, from, to) => changeBetween(join(dir, '.git'), from, to),
    };
    const push = (before: string, after: string): HostEvent => ({
      kind: 'push',
      repository: { kind: 'context', name: 'product' },
      branch: 'main',
      before,
      after,
      commits: [],
    });

    const refused = await processHostEvent(deps, receivedOf(project.id, push(head0, head1)));
    expect(refused.runs).toEqual([
      expect.objectContaining({
        outcome: 'skipped',
        reason: 'invalid',
        detail: expect.stringContaining('baseRef'),
      }),
    ]);
    expect(await jobsOf(project.id)).toEqual([]);

    await database.store.automations.update(project.id, automation.id, { baseRef: null });
    write(dir, 'src/cli.ts', "export const flags = ['--verbose'];\n");
    await git(dir, 'commit', '--quiet', '-am', 'Add --verbose');
    const head2 = await git(dir, 'rev-parse', 'HEAD');
    const made = await processHostEvent(deps, receivedOf(project.id, push(head1, head2)));
    expect(made.runs).toEqual([expect.objectContaining({ outcome: 'created' })]);
    const [job] = await jobsOf(project.id);
    // The change covers the commit whose job could not be made.
    expect(job?.prompt).toContain(`From ${head0} to ${head2}`);
    expect(job?.prompt).toContain('Generate the pages');
    expect(job?.prompt).toContain('Add --verbose');
    expect(job?.prompt).toMatch(/\[file list cut at \d+ of 5002 files;/);
    expect(job?.prompt).toMatch(/\[diff cut at 60000 of \d+ characters;/);
    expect(job?.prompt).not.toContain('\x0c');
  });

  it('records every refused trigger as an invalid run that spends none of the day’s runs', async () => {
    const limited = configWith({ AGENTJOBS_AUTOMATION_RUNS_PER_DAY: '1' });
    const deps = { store: database.store, config: limited, automations: limited.automations };
    const { project, automation } = await projectWith({ type: 'manual' }, { prompt: '{{variables.topic}}' });
    for (let attempt = 0; attempt < 3; attempt++) {
      const refusal = await triggerAutomation(deps, project.id, automation.id, { topic: '  \n ' }).catch(
        (error: unknown) => error,
      );
      expect(isAppError(refusal) && refusal.code).toBe('invalid_request');
    }
    const made = await triggerAutomation(deps, project.id, automation.id, { topic: 'Document the CLI' });
    expect(made.run.outcome).toBe('created');
    expect((await runsOf(automation.id)).map((run) => [run.outcome, run.reason, run.detail])).toEqual([
      ['skipped', 'invalid', 'body.prompt: prompt must not be only whitespace'],
      ['skipped', 'invalid', 'body.prompt: prompt must not be only whitespace'],
      ['skipped', 'invalid', 'body.prompt: prompt must not be only whitespace'],
      ['created', null, null],
    ]);
  });

  it("holds a grouped run to the follow-up's rules, and spends none of the API's hourly budget on it", async () => {
    const hourly = configWith({ AGENTJOBS_RATE_LIMIT_PER_HOUR: '1' });
    const deps = { store: database.store, config: hourly, automations: hourly.automations };
    const { project, automation } = await projectWith(
      { type: 'manual' },
      { prompt: '{{variables.note}}', group: true },
    );
    // The API's one request this hour.
    await createJob(deps, { projectId: project.id, prompt: 'Another piece of work' });
    const first = await triggerAutomation(deps, project.id, automation.id, { note: 'Write the quickstart' });
    expect(first.run.outcome).toBe('created');

    const blank = await triggerAutomation(deps, project.id, automation.id, { note: ' \t ' }).catch(
      (error: unknown) => error,
    );
    expect(isAppError(blank) && blank.code).toBe('invalid_request');
    const grouped = await triggerAutomation(deps, project.id, automation.id, { note: 'Also the FAQ' });
    expect(grouped.run).toMatchObject({ outcome: 'grouped', jobId: first.job.id });
    expect((await runsOf(automation.id)).map((run) => [run.outcome, run.reason])).toEqual([
      ['created', null],
      ['skipped', 'invalid'],
      ['grouped', null],
    ]);
  });
});

describe.each(testDialects())('the same comment delivered again, on %s', (dialect) => {
  let database: TestStore;
  let app: FastifyInstance;
  let double: GithubDouble;
  let base = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'agentjobs-same-comment-'));
  const serverConfig = loadConfig({
    AGENTJOBS_DATA_DIR: dataDir,
    AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
  });
  const secrets = lazySecretBox(serverConfig);

  beforeAll(async () => {
    database = await openTestStore(dialect);
    app = await buildApp({ config: serverConfig, store: database.store, logger, secrets });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    double = await startGithubDouble({ token: 'unused-token' });
  });
  afterAll(async () => {
    await double?.close();
    await app?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is a duplicate by its own id whatever its delivery id: one run, one job', async () => {
    const { store } = database;
    const project = await store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/acme/docs.git',
    });
    const automation = await store.automations.create({
      projectId: project.id,
      name: 'Answer mentions',
      enabled: true,
      trigger: { type: 'comment' },
      prompt: '{{comment.body}}',
      group: false,
      draft: false,
      model: null,
      baseRef: null,
      allowedAuthors: ['reviewer'],
    });
    const secret = (await store.projects.rotateHookSecret(project.id, secrets())) ?? '';
    const url = `${base}/v2/hooks/${project.id}/github`;
    const comment = double.hookMessage('acme/docs', {
      kind: 'comment',
      on: 'issue',
      number: 5,
      body: '@agentjobs document the flags',
      association: 'OWNER',
    });
    const answers = [];
    for (let delivery = 0; delivery < 3; delivery++)
      answers.push(await double.sendHook(url, comment, secret));
    expect(answers.map((answer) => answer.body.outcome)).toEqual(['recorded', 'duplicate', 'duplicate']);
    expect(new Set(answers.map((answer) => answer.deliveryId)).size).toBe(3);

    const dispatcher = createHostEventDispatcher({ store, logger, config: serverConfig });
    await dispatcher.start();
    try {
      await dispatcher.wake();
    } finally {
      await dispatcher.stop();
    }
    expect((await store.jobs.list(project.id, { limit: 10 })).jobs).toHaveLength(1);
    const runs = (await store.automations.runs(automation.id, { limit: 10 })).runs;
    expect(runs.map((run) => [run.outcome, run.reason]).sort()).toEqual([
      ['created', null],
      ['skipped', 'duplicate'],
      ['skipped', 'duplicate'],
    ]);

    // Another comment on the same thread is its own event.
    const another = double.hookMessage('acme/docs', {
      kind: 'comment',
      on: 'issue',
      number: 5,
      body: '@agentjobs and the exit codes',
      association: 'OWNER',
    });
    expect((await double.sendHook(url, another, secret)).body.outcome).toBe('recorded');
  });
});
