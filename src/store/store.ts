import { sql } from 'kysely';
import { adminQueries } from './admin.js';
import { apiKeyQueries } from './api-keys.js';
import { automationNoticeQueries } from './automation-notices.js';
import { automationQueries } from './automations.js';
import { contextRepositoryQueries } from './context-repositories.js';
import type { Db } from './db.js';
import { eventQueries } from './events.js';
import { hostEventQueries } from './host-events.js';
import { hostPullRequestQueries } from './host-pull-requests.js';
import { idempotencyQueries } from './idempotency.js';
import { jobQueries } from './jobs.js';
import { linearSecretQueries } from './linear-secrets.js';
import { pullRequestCloseQueries } from './pr-closes.js';
import { projectQueries } from './projects.js';
import { pullRequestQueries } from './pull-requests.js';
import { queueQueries } from './queue/index.js';
import { rateLimitQueries } from './rate-limits.js';
import { signInHoldQueries } from './sign-in-holds.js';
import { slackQueries } from './slack.js';
import { spendQueries } from './spend.js';
import { statsQueries } from './stats.js';
import { webhookQueries } from './webhooks/index.js';

/**
 * Everything the API and the worker read or write, grouped by table. One implementation serves
 * SQLite and PostgreSQL; the `Db` underneath carries the differences.
 */
export interface Store {
  db: Db;
  projects: ReturnType<typeof projectQueries>;
  /** Each project's context repositories: the other repositories its agent reads. */
  contextRepositories: ReturnType<typeof contextRepositoryQueries>;
  apiKeys: ReturnType<typeof apiKeyQueries>;
  jobs: ReturnType<typeof jobQueries>;
  events: ReturnType<typeof eventQueries>;
  idempotency: ReturnType<typeof idempotencyQueries>;
  rateLimits: ReturnType<typeof rateLimitQueries>;
  /** The dashboard's sign-in failures per device or address, and the holds they earn. */
  signInHolds: ReturnType<typeof signInHoldQueries>;
  /** The worker's side of `jobs`: claim, lease, fenced writes, complete, fail (see `queue/`). */
  queue: ReturnType<typeof queueQueries>;
  /** The local code host's pull requests. */
  pullRequests: ReturnType<typeof pullRequestQueries>;
  /** The state of jobs' pull requests on GitHub, GitLab and Gitea, as last learned from the host. */
  hostPullRequests: ReturnType<typeof hostPullRequestQueries>;
  /** Pull requests of archived jobs, to close on their code hosts. */
  pullRequestCloses: ReturnType<typeof pullRequestCloseQueries>;
  /** The dashboard's sessions and server-wide settings. */
  admin: ReturnType<typeof adminQueries>;
  /** What projects spend per day, against their daily budgets. */
  spend: ReturnType<typeof spendQueries>;
  /** Webhook endpoints, their delivery log, and the deliverers' claim (see `webhooks/`). */
  webhooks: ReturnType<typeof webhookQueries>;
  /**
   * The code hosts' events as the webhook receiver recorded them (deduplicated by delivery id),
   * and the automations' dispatcher's claim of them.
   */
  hostEvents: ReturnType<typeof hostEventQueries>;
  /** Automations and their runs; the scheduler's claim of a schedule's time. */
  automations: ReturnType<typeof automationQueries>;
  /** Slack: channels mapped to projects, the events Slack delivered, the threads jobs were asked in. */
  slack: ReturnType<typeof slackQueries>;
  /** The notices of what became of automations' runs, recorded before they are posted to Slack. */
  automationNotices: ReturnType<typeof automationNoticeQueries>;
  /** The signing secrets of the projects' Linear webhooks. */
  linearSecrets: ReturnType<typeof linearSecretQueries>;
  /** Database-wide figures for the metrics gauges. */
  stats: ReturnType<typeof statsQueries>;
  /**
   * Whether `error` will pass if the work is tried again shortly (see `Db.isTransient`): what the
   * HTTP layer answers with 503 and Retry-After, and what the worker waits out.
   */
  isTransient(error: unknown): boolean;
  /** Resolves when the database answers; used by `/readyz`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function createStore(db: Db): Store {
  return {
    db,
    projects: projectQueries(db),
    contextRepositories: contextRepositoryQueries(db),
    apiKeys: apiKeyQueries(db),
    jobs: jobQueries(db),
    events: eventQueries(db),
    idempotency: idempotencyQueries(db),
    rateLimits: rateLimitQueries(db),
    signInHolds: signInHoldQueries(db),
    queue: queueQueries(db),
    pullRequests: pullRequestQueries(db),
    hostPullRequests: hostPullRequestQueries(db),
    pullRequestCloses: pullRequestCloseQueries(db),
    admin: adminQueries(db),
    spend: spendQueries(db),
    webhooks: webhookQueries(db),
    hostEvents: hostEventQueries(db),
    automations: automationQueries(db),
    slack: slackQueries(db),
    automationNotices: automationNoticeQueries(db),
    linearSecrets: linearSecretQueries(db),
    stats: statsQueries(db),
    isTransient: db.isTransient,
    ping: async () => {
      await sql`select 1`.execute(db.read());
    },
    close: () => db.close(),
  };
}
