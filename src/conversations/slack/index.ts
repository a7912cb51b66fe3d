/**
 * Slack in a process (docs/slack.md), as `server.ts` wires it: the events endpoint beside the API,
 * and, when the app has a bot token, the dispatcher of recorded events, the reporter of finished
 * jobs, the notifier of automations' runs and, with an app-level token, the Socket Mode connection. The secrets are read once, when
 * first needed (`credentials.ts`); without a bot token Slack is off and nothing here runs.
 */
import type { Config } from '../../config/config.js';
import type { Lifecycle } from '../../domain/lifecycle.js';
import type { Logger } from '../../log.js';
import type { SecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';
import { createSlackApi } from './client.js';
import { readSlackCredentials, type SlackCredentials } from './credentials.js';
import { createSlackDispatcher } from './dispatcher.js';
import { createSlackNotifier } from './notices.js';
import { createSlackReporter } from './reporter.js';
import type { SlackRouteOptions } from './route.js';
import { createSlackSocket } from './socket.js';

export { slackRoutes } from './route.js';

export interface SlackOptions {
  config: Config;
  store: Store;
  logger: Logger;
  secrets: () => SecretBox;
  lifecycle?: Lifecycle | undefined;
  /** Where the dashboard is served, for links; known once the server listens. */
  publicUrl: () => string;
}

/** The secrets, read once they are read without error (a database away is tried again next time). */
function credentialsOnce(options: Pick<SlackOptions, 'config' | 'store' | 'secrets'>) {
  let read: Promise<SlackCredentials> | null = null;
  return () => {
    read ??= readSlackCredentials(options.config.slack, options.store, options.secrets).catch((error) => {
      read = null;
      throw error;
    });
    return read;
  };
}

/** What the events endpoint is registered with. */
export function slackRouteOptions(
  options: Pick<SlackOptions, 'config' | 'store' | 'secrets' | 'logger'>,
): SlackRouteOptions {
  const credentials = credentialsOnce(options);
  return {
    store: options.store,
    logger: options.logger,
    signingSecret: async () => (await credentials()).signingSecret,
  };
}

interface Running {
  stop(): Promise<void>;
}

/** The part of a process that handles Slack's events and posts the news: started, stopped as one. */
export function slackPart(options: SlackOptions) {
  const { config, store, logger } = options;
  const running: Running[] = [];
  return {
    name: 'Slack',
    start: async () => {
      const credentials = await credentialsOnce(options)();
      if (!credentials.botToken) return;
      const api = createSlackApi({ token: credentials.botToken, apiUrl: config.slack.apiUrl, logger });
      const deps = {
        store,
        config,
        automations: config.automations,
        api,
        log: logger,
        lifecycle: options.lifecycle,
        publicUrl: options.publicUrl,
        logger,
        pollMs: config.worker.pollMs,
      };
      const dispatcher = createSlackDispatcher(deps);
      const reporter = createSlackReporter(deps);
      const notifier = createSlackNotifier(deps);
      running.push(dispatcher, reporter, notifier);
      await dispatcher.start();
      await reporter.start();
      await notifier.start();
      if (credentials.appToken) {
        const socket = createSlackSocket({
          appToken: credentials.appToken,
          apiUrl: config.slack.apiUrl,
          store,
          logger,
        });
        running.push(socket);
        socket.start();
      }
      logger.info({ socketMode: Boolean(credentials.appToken) }, 'Slack is on');
    },
    stop: async () => {
      await Promise.all(running.map((each) => each.stop()));
    },
  };
}
