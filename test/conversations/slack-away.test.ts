/**
 * A server whose Slack cannot be reached (docs/slack.md#socket-mode) still starts, serves and stops:
 * Socket Mode's failure is logged, without the tokens, and the events endpoint still answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startServerProcess } from '../support/processes.js';
import { tempDir } from '../support/worker.js';

it('starts, logs that Socket Mode could not connect, and stops', { timeout: 60_000 }, async () => {
  const dir = tempDir('slack-away');
  const botToken = 'xoxb-away-0000-secretvalue';
  const appToken = 'xapp-away-0000-secretvalue';
  try {
    const server = await startServerProcess({
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      HOME: dir,
      AGENTJOBS_SLACK_BOT_TOKEN: botToken,
      AGENTJOBS_SLACK_APP_TOKEN: appToken,
      AGENTJOBS_SLACK_SIGNING_SECRET: 'away-signing-secret',
      // Nothing listens on port 9 of loopback: every call is refused at once.
      AGENTJOBS_SLACK_API_URL: 'http://127.0.0.1:9/api/',
    });
    await expect
      .poll(() => server.output.join('\n'), { timeout: 20_000 })
      .toContain('Socket Mode could not connect to Slack');
    const unsigned = await fetch(`${server.url}/v2/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(401);
    expect(await server.stop()).toBe(0);
    const log = server.output.join('\n');
    expect(log).not.toContain(botToken);
    expect(log).not.toContain(appToken);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
