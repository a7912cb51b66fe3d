/**
 * Socket Mode (docs/slack.md#socket-mode): for an install Slack cannot reach, Slack's own client
 * (`@slack/socket-mode`) holds an outbound WebSocket, opened with the app-level token through
 * `apps.connections.open` at `AGENTJOBS_SLACK_API_URL`. Each `events_api` envelope is recorded as
 * the events endpoint records it, then acknowledged: an envelope whose record failed is not, and
 * Slack sends it again.
 */
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import { slackLogger } from './client.js';
import { SlackPayloadError } from './events.js';
import { receiveEnvelope } from './receive.js';

interface SocketEvent {
  type: string;
  body: unknown;
  ack: (response?: unknown) => Promise<void>;
}

export function createSlackSocket(options: {
  appToken: string;
  apiUrl: string;
  store: Store;
  logger: Logger;
}) {
  const client = new SocketModeClient({
    appToken: options.appToken,
    logger: slackLogger(options.logger),
    clientOptions: { slackApiUrl: options.apiUrl },
  });
  client.on('slack_event', async (event: SocketEvent) => {
    if (event.type !== 'events_api') return;
    try {
      await receiveEnvelope(options.store, options.logger, event.body, 'socket');
      await event.ack();
    } catch (error) {
      // An envelope that is none would come back for ever: taken, and logged.
      if (error instanceof SlackPayloadError) {
        options.logger.warn({ err: error }, 'a Socket Mode frame that is no event envelope');
        await event.ack();
        return;
      }
      options.logger.warn({ err: error }, 'a Socket Mode event could not be recorded; Slack sends it again');
    }
  });
  return {
    start: async () => {
      await client.start();
    },
    stop: async () => {
      await client.disconnect();
    },
  };
}
