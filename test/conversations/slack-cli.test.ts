/**
 * The Slack commands of the built CLI (docs/slack.md): `project slack add|list|remove` map channels
 * and list users, refusing what is no Slack id and a channel another project has; `slack connect`
 * seals the app's secrets into the database, where the server reads them and nobody else can.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { readSlackCredentials } from '../../src/conversations/slack/credentials.js';
import { openStore } from '../../src/store/open.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { runCli } from '../support/processes.js';
import { makeRepo, tempDir } from '../support/worker.js';

describe.each(testDialects())('agentjobs project slack and slack connect, on %s', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let docs = '';
  let handbook = '';

  beforeAll(async () => {
    dir = tempDir(`slack-cli-${dialect}`);
    database = await createTestDatabase(dialect);
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: database.url, HOME: dir };
    const { repo } = makeRepo(dir);
    const create = async (name: string) =>
      JSON.parse((await runCli(['project', 'create', '--name', name, '--repo', repo, '--json'], env)).stdout)
        .id;
    docs = await create('Docs');
    handbook = await create('Handbook');
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maps channels and lists users, and refuses what is no Slack id or is taken', async () => {
    const added = await runCli(
      [
        'project',
        'slack',
        'add',
        docs,
        '--channel',
        'CDOCS0001',
        '--channel',
        'CDOCS0002',
        '--user',
        'UALICE001',
        '--json',
      ],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({
      projectId: docs,
      channels: ['CDOCS0001', 'CDOCS0002'],
      users: ['UALICE001'],
    });
    const taken = await runCli(['project', 'slack', 'add', handbook, '--channel', 'CDOCS0001'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`Channel CDOCS0001 asks project ${docs} already`);
    for (const bad of [['--channel', '#docs'], ['--user', 'alice'], []]) {
      const refused = await runCli(['project', 'slack', 'add', docs, ...bad], env);
      expect(refused.code, bad.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/--channel must be|--user must be|Give at least one/);
    }
    const removed = await runCli(
      ['project', 'slack', 'remove', docs, '--channel', 'CDOCS0002', '--json'],
      env,
    );
    expect(JSON.parse(removed.stdout).channels).toEqual(['CDOCS0001']);
    const listed = await runCli(['project', 'slack', 'list', docs], env);
    expect(listed.stdout).toContain('channels  CDOCS0001');
    expect(listed.stdout).toContain('users     UALICE001');
  });

  it('seals the secrets from standard input; the server’s key opens them, the row shows none', async () => {
    const bot = 'xoxb-1111-2222-secretbot';
    const signing = 'signing-secret-abcdef123456';
    const connected = await runCli(
      ['slack', 'connect', '--json'],
      env,
      `# from the app's settings\nAGENTJOBS_SLACK_BOT_TOKEN=${bot}\nAGENTJOBS_SLACK_SIGNING_SECRET=${signing}\n`,
    );
    expect(connected.code, connected.stderr).toBe(0);
    expect(JSON.parse(connected.stdout)).toEqual({
      stored: { signingSecret: true, botToken: true, appToken: false },
    });
    expect(connected.stdout + connected.stderr).not.toContain(bot);
    const wrong = await runCli(['slack', 'connect'], env, 'AGENTJOBS_SLACK_BOT_TOKEN=xoxp-user-token\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('AGENTJOBS_SLACK_BOT_TOKEN does not look right');
    expect(wrong.stderr).not.toContain('xoxp-user-token');

    const config = loadConfig(env);
    const store = await openStore(config);
    try {
      expect(await store.admin.getSetting('slack.credentials')).not.toContain(bot);
      expect(await readSlackCredentials(config.slack, store, lazySecretBox(config))).toEqual({
        signingSecret: signing,
        botToken: bot,
        appToken: null,
      });
      // The environment wins over what is stored.
      const fromEnv = loadConfig({ ...env, AGENTJOBS_SLACK_BOT_TOKEN: 'xoxb-from-the-environment' });
      expect((await readSlackCredentials(fromEnv.slack, store, lazySecretBox(config))).botToken).toBe(
        'xoxb-from-the-environment',
      );
    } finally {
      await store.close();
    }
  });
});
