import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';

// The Slack app manifests the project ships (docs/slack.md#creating-the-app) ask for what the
// service uses: the events it reads and the scopes of the Web API methods it calls, no more.
const root = path.resolve(import.meta.dirname, '../..');
const read = (name: string) =>
  parse(fs.readFileSync(path.join(root, 'deploy/slack', name), 'utf8')) as {
    oauth_config: { scopes: { bot: string[] } };
    settings: {
      event_subscriptions: { request_url?: string; bot_events: string[] };
      socket_mode_enabled: boolean;
    };
  };

it('subscribes to the events the service reads and asks for the scopes of the methods it calls', () => {
  for (const [name, socketMode] of [
    ['manifest.yaml', false],
    ['manifest-socket-mode.yaml', true],
  ] as const) {
    const manifest = read(name);
    expect(manifest.settings.socket_mode_enabled, name).toBe(socketMode);
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual([
      'app_mention',
      'message.channels',
      'message.groups',
      'message.im',
    ]);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual([
      'app_mentions:read',
      'channels:history',
      'channels:read',
      'chat:write',
      'groups:history',
      'groups:read',
      'im:history',
    ]);
    if (socketMode) expect(manifest.settings.event_subscriptions.request_url).toBeUndefined();
    else expect(manifest.settings.event_subscriptions.request_url).toMatch(/\/v2\/slack\/events$/);
  }
});
