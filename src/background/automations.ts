/**
 * What runs automations in a process: the scheduler (schedule triggers) and the dispatcher of the
 * code hosts' events (code, content and comment triggers), started and stopped together. Every
 * role runs both; their claims make each time and each event run once across processes.
 */
import type { Config } from '../config/config.js';
import type { CodeHosts } from '../hosts/types.js';
import { pullRequestOpenOnHost } from '../operations/pull-request-state.js';
import { createHostEventDispatcher, type HostEventDispatcherOptions } from './host-events.js';
import { createPoller } from './poller.js';
import { createPullRequestStatePoll } from './pull-request-states.js';
import { createScheduler } from './scheduler.js';
import { commentAuthorChecker, threadReplier } from './thread-replies.js';
import { type WatchedRepositoryOptions, watchedRepositories } from './watched-repositories.js';

/** The automation loops of one process. */
export interface AutomationLoops {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the loops need: the dispatcher's options, and how to fetch the content repository. */
export type AutomationLoopOptions = Omit<
  HostEventDispatcherOptions,
  'repositories' | 'config' | 'reply' | 'authorCanWrite'
> & {
  config: HostEventDispatcherOptions['config'] & Pick<Config, 'dataDir' | 'secretKey' | 'publicUrl'>;
  contentGitEnv?: WatchedRepositoryOptions['contentGitEnv'];
  /** The code hosts a comment's reply and its author's permission go through; absent, comments get no reply and only named authors start work. */
  hosts?: CodeHosts;
  /** Where the dashboard is served, for the job's link in a reply; default the configured public URL. */
  publicUrl?: () => string;
};

export function createAutomationLoops(options: AutomationLoopOptions): AutomationLoops {
  const repositories = watchedRepositories({
    store: options.store,
    config: options.config,
    ...(options.contentGitEnv ? { contentGitEnv: options.contentGitEnv } : {}),
  });
  const { hosts } = options;
  // Grouping asks the code host whether the latest job's pull request is still open: one closed
  // without merge is never grouped into.
  const grouping = hosts
    ? { pullRequestOpen: pullRequestOpenOnHost({ store: options.store, hosts, log: options.logger }) }
    : {};
  const scheduler = createScheduler({ ...options, ...grouping });
  const publicUrl = options.publicUrl ?? (() => options.config.publicUrl);
  const threads = hosts
    ? {
        reply: threadReplier({ store: options.store, hosts, publicUrl }),
        authorCanWrite: commentAuthorChecker({ store: options.store, hosts, logger: options.logger }),
      }
    : {};
  const dispatcher = createHostEventDispatcher({ ...options, ...grouping, repositories, ...threads });
  const poller = createPoller({ ...options, repositories });
  const states = hosts
    ? createPullRequestStatePoll({
        store: options.store,
        hosts,
        logger: options.logger,
        pollMs: options.config.automations.pollMs,
      })
    : null;
  return {
    async start() {
      await scheduler.start();
      await dispatcher.start();
      await poller.start();
      await states?.start();
    },
    async stop() {
      await Promise.all([scheduler.stop(), dispatcher.stop(), poller.stop(), states?.stop()]);
    },
  };
}
