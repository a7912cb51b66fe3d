/**
 * Socket Mode (docs/slack.md#socket-mode): for an install Slack cannot reach, Slack's own client
 * (`@slack/socket-mode`) holds an outbound WebSocket, opened with the app-level token through
 * `apps.connections.open` at `AGENTJOBS_SLACK_API_URL`. Each `events_api` envelope is recorded as
 * the events endpoint records it, then acknowledged: an envelope whose record failed is not, and
 * Slack sends it again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SocketModeClient } from '@slack/socket-mode';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import { slackLogger } from './client.js';
import { SlackPayloadError } from './events.js';
import { receiveEnvelope } from './receive.js';

/** How long a stop waits for the WebSocket to close. */
const STOP_WAIT_MS = 5_000;

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
    // A few quick tries to open the connection; Slack's client reconnects later by itself, and a
    // Slack that stays away is logged rather than waited on for its default half hour.
    clientOptions: {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 2, minTimeout: 200, maxTimeout: 2000 },
    },
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
  const stopping = new AbortController();
  /**
   * Connects, and tries again with a doubling wait while Slack cannot be reached (its client gives
   * up on a refused first call): the service runs meanwhile, and takes Slack's events once it can.
   */
  const connect = async () => {
    for (
      let waitMs = 1000, tries = 1;
      !stopping.signal.aborted;
      waitMs = Math.min(waitMs * 2, 60_000), tries++
    ) {
      try {
        await client.start();
        if (tries > 1) options.logger.info({ tries }, 'Socket Mode connected to Slack');
        return;
      } catch (error) {
        if (stopping.signal.aborted) return;
        const log = { err: error, retryInMs: waitMs };
        if (tries === 1) options.logger.error(log, 'Socket Mode could not connect to Slack; trying again');
        else options.logger.debug(log, 'Socket Mode could not connect to Slack again');
        await sleep(waitMs, undefined, { signal: stopping.signal }).catch(() => {});
      }
    }
  };
  return {
    /** Starts connecting; resolves at once. */
    start: () => {
      void connect();
    },
    stop: async () => {
      stopping.abort();
      // Slack's client resolves once its socket says it closed; a socket that never answers must
      // not hold the process's stop, so it gets a few seconds.
      const timer = new AbortController();
      await Promise.race([
        client.disconnect(),
        sleep(STOP_WAIT_MS, undefined, { signal: timer.signal }).catch(() => {}),
      ]);
      timer.abort();
    },
  };
}
