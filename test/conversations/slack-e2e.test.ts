/**
 * Slack end to end (docs/slack.md): the built server over real HTTP, Slack's double (its Web API,
 * which checks every call as Slack would, and its Socket Mode WebSocket), the scripted model and a
 * local project on a fresh database of each kind. A mention makes a job, whose thread gets "On it"
 * and then the pull request; a reply in the thread is a follow-up; an unsigned, stale, bot or
 * repeated event and a mention in an unmapped channel start nothing; an envelope over Socket Mode
 * is handled as one over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { createProjectAndKey } from '../support/e2e.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { type SlackDouble, startSlackDouble } from '../support/slack-double.js';
import { makeRepo, tempDir } from '../support/worker.js';

const DOCS = 'CDOCS0001';
const RANDOM = 'CRANDOM01';
const ALICE = 'UALICE001';
const BOB = 'UBOB00001';
const ALICE_DM = 'DALICE001';
const BOB_DM = 'DBOB00001';

describe.each(testDialects())('Slack on a running server, on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let model: ScriptedModelServer;
  let slack: SlackDouble;
  let server: ServerProcess;
  let projectId = '';
  let key = '';
  let events = '';
  let env: Record<string, string> = {};
  /** The thread the first job was asked in. */
  let thread = '';

  beforeAll(async () => {
    dir = tempDir(`slack-e2e-${dialect}`);
    const { repo } = makeRepo(dir);
    database = await createTestDatabase(dialect);
    model = await startScriptedModel();
    slack = await startSlackDouble();
    slack.addChannel(DOCS, [ALICE]);
    slack.addChannel(RANDOM, [ALICE, BOB]);
    slack.addChannel(ALICE_DM, [ALICE]);
    slack.addChannel(BOB_DM, [BOB]);
    env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      HOME: dir,
    };
    ({ projectId, key } = await createProjectAndKey(env, repo));
    const mapped = await runCli(['project', 'slack', 'add', projectId, '--channel', DOCS, '--json'], env);
    expect(mapped.code, mapped.stderr).toBe(0);
    server = await startServerProcess({
      ...env,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_POLL_SECONDS: '1',
      AGENTJOBS_SLACK_SIGNING_SECRET: slack.signingSecret,
      AGENTJOBS_SLACK_BOT_TOKEN: slack.botToken,
      AGENTJOBS_SLACK_APP_TOKEN: slack.appToken,
      AGENTJOBS_SLACK_API_URL: slack.apiUrl,
    });
    events = `${server.url}/v2/slack/events`;
    await slack.connected();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await slack?.close();
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const jobs = async (): Promise<Job[]> => {
    const response = await fetch(`${server.url}/v2/agent/${projectId}/job?limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return ((await response.json()) as { jobs: Job[] }).jobs;
  };
  const posted = (channel: string, ts: string, count: number) =>
    expect.poll(() => slack.posted(channel, ts), { timeout: 45_000, interval: 100 }).toHaveLength(count);

  it('answers url_verification with its challenge', async () => {
    const answer = await slack.send(events, { type: 'url_verification', token: 't', challenge: 'c-123' });
    expect(answer).toEqual({ status: 200, body: { challenge: 'c-123' } });
  });

  it('makes a job from a mention: "On it" in the thread, then the pull request', {
    timeout: 90_000,
  }, async () => {
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/faq.md', content: '# FAQ\n' } }] },
      { text: 'Added a FAQ page.' },
    ]);
    const context = slack.say({
      channel: DOCS,
      user: ALICE,
      text: 'The install page has no FAQ.',
      type: 'message',
    });
    const mention = slack.say({
      channel: DOCS,
      user: ALICE,
      text: `<@${slack.botUserId}> please add a FAQ page`,
      threadTs: context.ts,
    });
    const answer = await slack.send(events, mention.envelope);
    expect(answer).toEqual({ status: 200, body: { ok: true, outcome: 'recorded' } });

    thread = context.ts;
    await posted(DOCS, context.ts, 2);
    const [onIt, done] = slack.posted(DOCS, context.ts);
    const [job] = await jobs();
    expect(onIt).toBe(`On it: ${server.url}/ui/projects/${projectId}/jobs/${job?.id}`);
    expect(job?.prompt).toMatch(/^please add a FAQ page\n\nThe Slack thread this was asked in/);
    expect(job?.prompt).toContain(`<@${ALICE}>: The install page has no FAQ.`);
    expect(job?.status).toBe('completed');
    expect(done).toBe(`Done: ${job?.prLink}\n\nAdded a FAQ page.`);
    expect(slack.violations).toEqual([]);
  });

  it('makes a reply in the thread a follow-up of its job', { timeout: 90_000 }, async () => {
    const [job] = await jobs();
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/faq.md', content: '# FAQ\n\nMore.\n' } }] },
      { text: 'Expanded the FAQ.' },
    ]);
    const reply = slack.say({
      channel: DOCS,
      user: ALICE,
      text: 'Add one more question',
      threadTs: thread,
      type: 'message',
    });
    expect((await slack.send(events, reply.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    await posted(DOCS, thread, 4);
    const [, , again, done] = slack.posted(DOCS, thread);
    expect(again).toBe(
      `On it, as a follow-up of the job: ${server.url}/ui/projects/${projectId}/jobs/${job?.id}`,
    );
    expect(done).toMatch(/^Done: .*\n\nExpanded the FAQ\.$/);
    expect(await jobs()).toHaveLength(1);
    expect(slack.violations).toEqual([]);
  });

  it('starts nothing for an unsigned, stale, wrongly signed, bot or repeated event', {
    timeout: 30_000,
  }, async () => {
    const before = (await jobs()).length;
    const asked = slack.say({ channel: DOCS, user: ALICE, text: `<@${slack.botUserId}> rewrite everything` });
    expect((await slack.send(events, asked.envelope, { unsigned: true })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await slack.send(events, asked.envelope, { timestamp: stale })).status).toBe(401);
    expect((await slack.send(events, asked.envelope, { secret: 'not the signing secret' })).status).toBe(401);
    // Signed, but no envelope: refused as such, recorded nowhere.
    expect((await slack.send(events, 'not an envelope')).status).toBe(400);
    const bot = slack.say({
      channel: DOCS,
      user: 'UOTHERBOT',
      botId: 'BOTHER01',
      text: `<@${slack.botUserId}> hi`,
    });
    expect((await slack.send(events, bot.envelope)).body).toEqual({ ok: true, outcome: 'ignored' });

    // The same mention, delivered and then retried by Slack: one record, one job.
    model.setScript([{ text: 'Nothing to rewrite.' }]);
    const once = slack.say({ channel: DOCS, user: ALICE, text: `<@${slack.botUserId}> check the guide` });
    expect((await slack.send(events, once.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    expect((await slack.send(events, once.envelope, { retryNum: 1 })).body).toEqual({
      ok: true,
      outcome: 'duplicate',
    });
    await posted(DOCS, once.ts, 2);
    expect(await jobs()).toHaveLength(before + 1);
    expect(slack.posted(DOCS, asked.ts)).toEqual([]);
    expect(slack.posted(DOCS, bot.ts)).toEqual([]);
  });

  it('starts nothing for a mention in a channel mapped to no project, and says how to map it', async () => {
    const before = (await jobs()).length;
    const mention = slack.say({ channel: RANDOM, user: ALICE, text: `<@${slack.botUserId}> fix the docs` });
    expect((await slack.send(events, mention.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    await posted(RANDOM, mention.ts, 1);
    expect(slack.posted(RANDOM, mention.ts)[0]).toContain(
      `agentjobs project slack add PROJECT --channel ${RANDOM}`,
    );
    expect(await jobs()).toHaveLength(before);
  });

  it('handles an envelope over Socket Mode as one over HTTP', { timeout: 60_000 }, async () => {
    const before = (await jobs()).length;
    model.setScript([{ text: 'Nothing to change.' }]);
    const mention = slack.say({
      channel: DOCS,
      user: ALICE,
      text: `<@${slack.botUserId}> look at the guide`,
    });
    const ack = await slack.push(mention.envelope);
    expect(ack.envelope_id).toBeTruthy();
    await posted(DOCS, mention.ts, 2);
    expect(slack.posted(DOCS, mention.ts)[0]).toMatch(/^On it: /);
    // The same event over HTTP as well: a repeat.
    expect((await slack.send(events, mention.envelope)).body).toEqual({ ok: true, outcome: 'duplicate' });
    expect(await jobs()).toHaveLength(before + 1);
    expect(
      slack.calls
        .filter((call) => call.method === 'apps.connections.open')
        .every((call) => call.token === slack.appToken),
    ).toBe(true);
    expect(slack.violations).toEqual([]);
  });

  it('takes a direct message naming the project from a member of its channel, and none from others', {
    timeout: 60_000,
  }, async () => {
    const before = (await jobs()).length;
    model.setScript([{ text: 'Nothing to change.' }]);
    const dm = (channel: string, user: string) =>
      slack.say({ channel, user, text: 'Docs: add a changelog page', type: 'message', channelType: 'im' });
    // Bob is in no channel of the project: his message is handled first, and starts nothing.
    const bobs = dm(BOB_DM, BOB);
    expect((await slack.send(events, bobs.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    const alices = dm(ALICE_DM, ALICE);
    expect((await slack.send(events, alices.envelope)).body).toEqual({ ok: true, outcome: 'recorded' });
    await posted(ALICE_DM, alices.ts, 2);
    expect(slack.posted(ALICE_DM, alices.ts)[0]).toMatch(/^On it: /);
    expect(slack.posted(BOB_DM, bobs.ts)).toEqual([]);
    const made = await jobs();
    expect(made).toHaveLength(before + 1);
    expect(made[0]?.prompt).toBe('add a changelog page');
  });

  it('lets only the listed users ask, once the project lists any', { timeout: 60_000 }, async () => {
    const listed = await runCli(['project', 'slack', 'add', projectId, '--user', BOB], env);
    expect(listed.code, listed.stderr).toBe(0);
    const before = (await jobs()).length;
    model.setScript([{ text: 'Nothing to change.' }]);
    const alices = slack.say({ channel: DOCS, user: ALICE, text: `<@${slack.botUserId}> tidy the guide` });
    await slack.send(events, alices.envelope);
    const bobs = slack.say({
      channel: BOB_DM,
      user: BOB,
      text: 'docs tidy the guide',
      type: 'message',
      channelType: 'im',
    });
    await slack.send(events, bobs.envelope);
    await posted(BOB_DM, bobs.ts, 2);
    expect(slack.posted(DOCS, alices.ts)).toEqual([]);
    expect(await jobs()).toHaveLength(before + 1);
    await runCli(['project', 'slack', 'remove', projectId, '--user', BOB], env);
  });

  it('never logs the app’s secrets', () => {
    const log = server.output.join('\n');
    expect(log).toContain('Slack is on');
    for (const secret of [slack.botToken, slack.appToken, slack.signingSecret])
      expect(log).not.toContain(secret);
  });
});
