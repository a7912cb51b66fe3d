/**
 * The poll of pull-request states (docs/automations.md, "Run outcomes"): every
 * `AGENTJOBS_REPOSITORY_POLL_SECONDS` it asks GitHub, GitLab or Gitea about the pull requests that
 * automations' jobs opened and that are not known to be merged or closed, and records what the host
 * says, so the runs show `accepted` or `closed` without a follow-up having to ask. The local host's
 * pull requests are records in the database, always current. Each process that runs the
 * automations polls; the questions are few and answers the same, so no claim is taken.
 */
import type { CodeHosts } from '../hosts/types.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { type BackgroundLoop, backgroundLoop } from './loop.js';

/** Pull requests asked about per project and pass at most (the most recently updated jobs first). */
const PER_PROJECT = 50;

/** What the poll needs. */
export interface PullRequestStatePollOptions {
  store: Store;
  hosts: CodeHosts;
  logger: Logger;
  pollMs: number;
}

/** Starts and stops the poll. */
export function createPullRequestStatePoll(options: PullRequestStatePollOptions): {
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const { store, hosts, logger } = options;

  async function pass() {
    for (const project of await store.projects.list()) {
      if (project.host === 'local') continue;
      let number: number | null = null;
      try {
        const host = hosts(project.host);
        for (const pull of await store.hostPullRequests.unfinished(project.id, PER_PROJECT)) {
          number = pull.number;
          const found = await host.pullRequestState({ project, number });
          if (found) await store.hostPullRequests.recordHostState(project.id, number, found.state);
        }
      } catch (error) {
        // The host is down or refuses: the next poll asks again; the runs keep the last state known.
        logger.warn({ err: error, projectId: project.id, number }, 'could not read a pull request state');
      }
    }
    return {};
  }

  let loop: BackgroundLoop | null = null;
  return {
    async start() {
      loop = backgroundLoop({ name: 'reading pull request states', logger, pass, pollMs: options.pollMs });
      await loop.start();
    },
    async stop() {
      await loop?.stop();
      loop = null;
    },
  };
}
