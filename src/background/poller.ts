/**
 * The poller (docs/automations.md): every `AGENTJOBS_REPOSITORY_POLL_SECONDS` (a name of its own:
 * `AGENTJOBS_POLL_SECONDS` is the worker's queue poll) it fetches each branch an enabled `code_change` or `content_change` automation watches,
 * and every `AGENTJOBS_LOCAL_REPOSITORY_POLL_SECONDS` (3 by default) the branches of local
 * repositories, which cost next to nothing to look at and send no webhooks; when the
 * branch's head moved past the head an automation last saw, records a push as host `poll`: the
 * fallback for a missed webhook, and the only way a local repository is heard from. The dispatcher
 * then runs it like a hook's push; a hook and a poll of the same head make one run, because each
 * automation takes a head once (`claimHead`).
 *
 * An automation with no head yet (just made or enabled) learns where its branch stands and starts
 * nothing: history before it is not its business. The heads live on the automations, so a restart
 * forgets nothing and a commit made while the service was down is found by the next poll.
 */
import type { Config } from '../config/config.js';
import type { Automation } from '../domain/automation.js';
import type { PushEvent, RepositoryMatch } from '../domain/host-event.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { type BackgroundLoop, backgroundLoop } from './loop.js';
import type { WatchedRepositories } from './watched-repositories.js';

/** What the poller needs. */
export interface PollerOptions {
  store: Store;
  logger: Logger;
  config: {
    automations: Pick<Config['automations'], 'pollMs'> & Partial<Pick<Config['automations'], 'localPollMs'>>;
  };
  repositories: WatchedRepositories;
}

/** The poller of one process. */
export interface Poller {
  start(): Promise<void>;
  /** Polls now (tests, and `agentjobs` commands that want an answer at once). */
  wake(): Promise<void>;
  stop(): Promise<void>;
}

type Watcher = Automation & { lastHead: string | null };

/** One branch and the automations watching it. */
interface WatchedBranch {
  projectId: string;
  repository: RepositoryMatch;
  branch: string;
  automations: Watcher[];
}

/** The automations grouped by the branch they watch: one fetch serves all of them. */
export function watchedBranches(automations: Watcher[]): WatchedBranch[] {
  const branches = new Map<string, WatchedBranch>();
  for (const automation of automations) {
    const { trigger } = automation;
    if (trigger.type !== 'code_change' && trigger.type !== 'content_change') continue;
    const repository: RepositoryMatch =
      trigger.type === 'code_change' ? { kind: 'context', name: trigger.repository } : { kind: 'content' };
    const key = JSON.stringify([automation.projectId, repository, trigger.branch]);
    const found = branches.get(key);
    if (found) found.automations.push(automation);
    else
      branches.set(key, {
        projectId: automation.projectId,
        repository,
        branch: trigger.branch,
        automations: [automation],
      });
  }
  return [...branches.values()];
}

/** The repository as a delivery id names it. */
const repositoryKey = (repository: RepositoryMatch) =>
  repository.kind === 'context' ? `context/${repository.name}` : 'content';

export function createPoller(options: PollerOptions): Poller {
  const { store, logger, repositories } = options;

  /** Looks at one branch: seeds the automations without a head, records a push when it moved. */
  async function poll(watched: WatchedBranch): Promise<void> {
    const { projectId, repository, branch } = watched;
    const head = await repositories.head(projectId, repository, branch);
    if (head === null) {
      logger.warn(
        { projectId, repository: repositoryKey(repository), branch },
        'a watched branch does not exist (yet)',
      );
      return;
    }
    const behind: string[] = [];
    for (const automation of watched.automations) {
      if (automation.lastHead === null) await store.automations.seedHead(automation.id, head);
      else if (automation.lastHead !== head) behind.push(automation.lastHead);
    }
    if (behind.length === 0) return;
    const previous = [...new Set(behind)];
    // With one head before (the usual case) the push names it and its commits; with several (an
    // automation enabled later), each automation reads its own range when it runs.
    const before = previous.length === 1 ? (previous[0] as string) : null;
    const commits = before === null ? [] : await repositories.commits(projectId, repository, before, head);
    const event: PushEvent = { kind: 'push', repository, branch, before, after: head, commits };
    const recorded = await store.hostEvents.record({
      projectId,
      host: 'poll',
      // Processes polling side by side record one event for one move.
      deliveryId: `poll:${repositoryKey(repository)}:${branch}:${previous.sort().join(',')}..${head}`,
      event,
    });
    if (!recorded.duplicate) {
      logger.info(
        { projectId, repository: repositoryKey(repository), branch, head, commits: commits.length },
        'a watched branch moved',
      );
    }
  }

  const { pollMs } = options.config.automations;
  const localPollMs = Math.min(options.config.automations.localPollMs ?? pollMs, pollMs);
  /** When each remote branch was last looked at: they wait `pollMs`, local ones only `localPollMs`. */
  const lastPolled = new Map<string, number>();

  async function pass() {
    const branches = watchedBranches(await store.automations.watching());
    const now = Date.now();
    for (const watched of branches) {
      const key = JSON.stringify([watched.projectId, watched.repository, watched.branch]);
      try {
        const due = (lastPolled.get(key) ?? Number.NEGATIVE_INFINITY) + pollMs - localPollMs / 2 <= now;
        if (!due && !(await repositories.isLocal(watched.projectId, watched.repository))) continue;
        lastPolled.set(key, now);
        await poll(watched);
      } catch (error) {
        // One repository out of reach must not keep the others from being polled.
        logger.warn(
          { err: error, projectId: watched.projectId, repository: repositoryKey(watched.repository) },
          'a watched repository could not be polled',
        );
      }
    }
    return {};
  }

  let loop: BackgroundLoop | null = null;
  return {
    async start() {
      loop = backgroundLoop({
        name: 'polling watched repositories',
        logger,
        pass,
        pollMs: localPollMs,
      });
      await loop.start();
    },
    // A wake asks for an answer now: every branch is looked at, remote ones too.
    wake: () => {
      lastPolled.clear();
      return loop?.wake() ?? Promise.resolve();
    },
    async stop() {
      await loop?.stop();
      loop = null;
    },
  };
}
