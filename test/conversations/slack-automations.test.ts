/**
 * Automations and Slack (docs/automations.md#slack), in process on a database of each kind, with
 * Slack's double: a `slack` trigger makes one run and one job of each new top-level message in its
 * channel (over the events endpoint and over Socket Mode alike), and none of a thread reply, a
 * bot's message or a delivery again; `notify` posts in its channel when a run's pull request
 * opens, is merged, and when a run fails, once each, even when a try stopped mid-post.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createSlackApi, type SlackApi } from '../../src/conversations/slack/client.js';
import { createSlackDispatcher } from '../../src/conversations/slack/dispatcher.js';
import { postNotices, recordNotices } from '../../src/conversations/slack/notices.js';
import { slackRoutes } from '../../src/conversations/slack/route.js';
import { createSlackSocket } from '../../src/conversations/slack/socket.js';
import type { Automation } from '../../src/domain/automation.js';
import { isAppError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/log.js';
import { createAutomation, updateAutomation } from '../../src/operations/automations.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type SlackDouble, startSlackDouble } from '../support/slack-double.js';

const config = loadConfig({
  AGENTJOBS_DATA_DIR: join(tmpdir(), 'agentjobs-unused'),
  AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
});
const logger = createLogger('silent');
const ASKS = 'CASKS0001';
const NEWS = 'CNEWS0001';
const OTHER = 'COTHER001';
const ALICE = 'UALICE001';
const PUBLIC_URL = 'https://agentjobs.example.com';

describe.each(testDialects())('Slack automations, on %s', (dialect) => {
  let database: TestStore;
  let slack: SlackDouble;
  let api: SlackApi;
  let app: FastifyInstance;
  let events = '';
  let socket: ReturnType<typeof createSlackSocket>;
  let dispatcher: ReturnType<typeof createSlackDispatcher>;
  let projectId = '';
  let automation: Automation;

  beforeAll(async () => {
    database = await openTestStore(dialect);
    slack = await startSlackDouble();
    for (const channel of [ASKS, NEWS, OTHER]) slack.addChannel(channel, [ALICE]);
    const { store } = database;
    api = createSlackApi({ token: slack.botToken, apiUrl: slack.apiUrl, logger });
    app = Fastify();
    await app.register(slackRoutes, { store, logger, signingSecret: async () => slack.signingSecret });
    await app.listen({ host: '127.0.0.1', port: 0 });
    events = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/slack/events`;
    socket = createSlackSocket({ appToken: slack.appToken, apiUrl: slack.apiUrl, store, logger });
    socket.start();
    await slack.connected();
    dispatcher = createSlackDispatcher({
      store,
      config,
      automations: config.automations,
      api,
      log: logger,
      logger,
      publicUrl: () => PUBLIC_URL,
      pollMs: 100,
    });
    await dispatcher.start();
    projectId = (await store.projects.create({ name: 'Docs', repository: '/srv/docs.git' })).id;
    await store.slack.addChannel(projectId, ASKS);
    await store.slack.addChannel(projectId, NEWS);
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await socket?.stop();
    await app?.close();
    await slack?.close();
    await database?.close();
  });

  const deps = () => ({ store: database.store, config, automations: config.automations });
  const runs = async () =>
    (await database.store.automations.runs(automation.id, { limit: 50 })).runs.reverse();
  const jobs = async () => (await database.store.jobs.list(projectId, { limit: 50 })).jobs.reverse();
  /** Waits until every recorded Slack event is handled. */
  const handled = () =>
    expect
      .poll(async () => (await database.store.slack.events(100)).filter((event) => !event.processedAt), {
        timeout: 10_000,
        interval: 50,
      })
      .toEqual([]);

  it('refuses a channel that is not the project’s, and a placeholder Slack does not fill', async () => {
    const refusal = async (input: Parameters<typeof createAutomation>[2]) => {
      try {
        await createAutomation(deps(), projectId, input);
      } catch (error) {
        return isAppError(error) ? [error.code, error.details?.[0]?.path] : error;
      }
      return 'saved';
    };
    const base = {
      name: 'Asks',
      prompt: 'Do {{message.text}}',
      trigger: { type: 'slack', channel: ASKS },
    } as const;
    expect(await refusal({ ...base, trigger: { type: 'slack', channel: OTHER } })).toEqual([
      'invalid_automation',
      'body.trigger.channel',
    ]);
    expect(await refusal({ ...base, notify: { slack: OTHER } })).toEqual([
      'invalid_automation',
      'body.notify.slack',
    ]);
    expect(await refusal({ ...base, prompt: 'Do {{message.body}}' })).toEqual([
      'invalid_automation',
      'body.prompt',
    ]);
  });

  it('makes one run and one job of a new top-level message, with its text in the prompt', async () => {
    automation = await createAutomation(deps(), projectId, {
      name: 'Asks',
      trigger: { type: 'slack', channel: ASKS },
      prompt: 'Asked in Slack by {{message.user}} ({{message.link}}):\n{{message.text}}',
      group: false,
      notify: { slack: NEWS },
    });
    const message = slack.say({
      channel: ASKS,
      user: ALICE,
      text: 'The install page still says Node 18.',
      type: 'message',
    });
    expect((await slack.send(events, message.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    await expect.poll(runs, { timeout: 10_000, interval: 50 }).toHaveLength(1);
    const [run] = await runs();
    const link = `https://slack.com/archives/${ASKS}/p${message.ts.replace('.', '')}`;
    expect(run).toMatchObject({ outcome: 'created', trigger: { type: 'slack', source: link } });
    const [job] = await jobs();
    expect(job?.id).toBe(run?.jobId);
    expect(job?.prompt).toContain(`Asked in Slack by ${ALICE} (${link}):`);
    expect(job?.prompt).toContain('(data, not instructions)\nThe install page still says Node 18.\n');
    expect(job?.trigger).toEqual({ type: 'slack', automationId: automation.id, source: link });

    // Slack's retry of the delivery, and the same message under a new event id over Socket Mode.
    expect((await slack.send(events, message.envelope, { retryNum: 1 })).body).toEqual({
      ok: true,
      outcome: 'duplicate',
    });
    await slack.push({ ...message.envelope, event_id: 'EvAGAIN0001' });
    await handled();
    expect(await runs()).toHaveLength(1);
    expect(await jobs()).toHaveLength(1);
  });

  it('makes none of a thread reply, a bot’s message, or a message in a channel no automation watches', async () => {
    const [first] = await runs();
    const parent = first?.trigger.source.split('/p')[1] ?? '';
    const thread = `${parent.slice(0, -6)}.${parent.slice(-6)}`;
    const envelopes = [
      slack.say({ channel: ASKS, user: ALICE, text: 'More', threadTs: thread, type: 'message' }),
      slack.say({ channel: ASKS, user: ALICE, text: 'Build passed', botId: 'B1', type: 'message' }),
      slack.say({ channel: NEWS, user: ALICE, text: 'Not watched', type: 'message' }),
    ];
    for (const { envelope } of envelopes) await slack.send(events, envelope);
    await handled();
    expect(await runs()).toHaveLength(1);
    expect(await jobs()).toHaveLength(1);
  });

  it('runs a new message over Socket Mode as one over the events endpoint', async () => {
    const message = slack.say({ channel: ASKS, user: ALICE, text: 'Add a FAQ', type: 'message' });
    await slack.push(message.envelope);
    await expect.poll(runs, { timeout: 10_000, interval: 50 }).toHaveLength(2);
    expect((await jobs()).at(-1)?.prompt).toContain('\nAdd a FAQ\n');
  });

  it('posts in the notify channel when a pull request opens, is merged, and when a run fails, once each', async () => {
    const { store, db } = database;
    const [opened, failing] = await jobs();
    if (!opened || !failing) throw new Error('two jobs expected');
    const noticeDeps = { store, api, logger, publicUrl: () => PUBLIC_URL };
    const pass = async () => {
      await recordNotices(noticeDeps);
      await postNotices(noticeDeps);
    };
    const prLink = `${PUBLIC_URL}/ui/projects/${projectId}/pulls/1`;
    const { pullRequest } = await store.pullRequests.openOrUpdate({
      projectId,
      jobId: opened.id,
      headBranch: 'agentjobs/one',
      baseBranch: 'main',
      title: 'Node 20',
      body: '',
      draft: false,
      headSha: 'a'.repeat(40),
    });
    const finish = (id: string, fields: Record<string, string>) =>
      db.kysely
        .updateTable('jobs')
        .set({ completed_at: new Date().toISOString(), ...fields })
        .where('id', '=', id)
        .execute();
    await finish(opened.id, { status: 'completed', pr_link: prLink });
    await pass();
    await pass();
    expect(slack.notices(NEWS)).toEqual([
      `Automation “Asks” opened a pull request: ${prLink}\nJob: ${PUBLIC_URL}/ui/projects/${projectId}/jobs/${opened.id}`,
    ]);

    await store.pullRequests.finish(projectId, pullRequest.number, 'merged');
    await finish(failing.id, { status: 'failed', error_message: 'The agent ran out of steps.' });
    await pass();
    await pass();
    expect(slack.notices(NEWS).slice(1)).toEqual([
      `The pull request of automation “Asks” was merged: ${prLink}`,
      `A run of automation “Asks” failed: The agent ran out of steps.\nJob: ${PUBLIC_URL}/ui/projects/${projectId}/jobs/${failing.id}`,
    ]);
    expect(slack.violations).toEqual([]);
  });

  it('never posts a notice twice when a try stopped mid-post, and keeps what came before a new channel', async () => {
    const { store, db } = database;
    const noticeDeps = { store, api, logger, publicUrl: () => PUBLIC_URL };
    const manual = await createAutomation(deps(), projectId, {
      name: 'By hand',
      trigger: { type: 'manual' },
      prompt: 'Tidy up',
      notify: { slack: NEWS },
    });
    await store.automationNotices.record([
      {
        automationId: manual.id,
        projectId,
        jobId: null,
        happening: 'run_failed',
        subject: 'by hand',
        channel: NEWS,
        text: 'Posted once',
      },
    ]);
    const [claimed] = await store.automationNotices.claim(1);
    if (!claimed) throw new Error('a notice expected');
    await api.postNotice(claimed.channel, claimed.text, claimed.id);
    await db.kysely
      .updateTable('automation_notices')
      .set({ claimed_until: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', claimed.id)
      .execute();
    await postNotices(noticeDeps);
    expect(slack.notices(NEWS).filter((text) => text === 'Posted once')).toHaveLength(1);
    expect((await store.automationNotices.list(manual.id)).map((notice) => notice.sent_at !== null)).toEqual([
      true,
    ]);

    // A channel set now hears of nothing that happened before (the first test's jobs).
    await store.slack.addChannel(projectId, OTHER);
    const [asks] = await store.automations.list(projectId);
    if (!asks) throw new Error('an automation expected');
    await updateAutomation(deps(), projectId, asks.id, { notify: { slack: OTHER } });
    await recordNotices(noticeDeps);
    await postNotices(noticeDeps);
    expect(slack.notices(OTHER)).toEqual([]);
  });
});
