/**
 * The one place that builds the parts and wires them together: the store, the code hosts (once),
 * the HTTP app (the API and the dashboard side by side) and the worker.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyError, FastifyInstance } from 'fastify';
import { runAgent } from './agent/loop.js';
import { createLanguageModel } from './agent/models.js';
import { type AppOptions, buildApp } from './api/app.js';
import { admit } from './api/auth.js';
import { createAutomationLoops } from './background/automations.js';
import { startPullRequestCloser } from './background/close-pull-requests.js';
import { createDeliverer, type Deliverer } from './background/deliverer.js';
import { jobCountLoop } from './background/job-counts.js';
import { type Part, startParts } from './background/parts.js';
import { createWorker, type Worker } from './background/worker.js';
import { closeParsePool } from './checks/index.js';
import type { Config } from './config/config.js';
import { slackPart, slackRouteOptions, slackRoutes } from './conversations/slack/index.js';
import type { Lifecycle } from './domain/lifecycle.js';
import type { Project } from './domain/project.js';
import { CodeHostError, type CodeHosts, createCodeHosts } from './hosts/index.js';
import { toAppError } from './http/errors.js';
import { type WorkerPorts, workerPorts } from './http/probe-server.js';
import { readinessCheck } from './http/readiness.js';
import { createLogger, type Logger, logDestination } from './log.js';
import { mcpRoutes } from './mcp/http.js';
import { Metrics } from './metrics/index.js';
import { pullRequestOpenOnHost } from './operations/pull-request-state.js';
import type { ResolveModel, RunAgent } from './run/agent-port.js';
import {
  announceAdminPassword,
  announceModel,
  defaultModelStatus,
  protectFiles,
  withListeningPort,
} from './server-startup.js';
import { openStore } from './store/open.js';
import { ensureSecretKey, lazySecretBox, type SecretBox, SecretError } from './store/secrets.js';
import type { Store } from './store/store.js';
import { dashboard } from './web/dashboard.js';

/**
 * The webhook deliverer of a process; every role runs one, so events go out while any process of a
 * deployment is up. Secrets are opened with the process's secret box.
 */
function makeDeliverer(
  config: Pick<Config, 'webhooks' | 'worker'>,
  store: Store,
  logger: Logger,
  metrics: Metrics,
  secrets: () => SecretBox,
): Deliverer {
  return createDeliverer({
    store,
    logger,
    config: config.webhooks,
    secrets,
    pollMs: config.worker.pollMs,
    onAttempt: (outcome) => metrics.webhookDelivery(outcome),
  });
}

/** The three ways to run the service: API, dashboard and a worker; API and dashboard; a worker. */
export type Role = 'serve' | 'api' | 'worker';

/** A running process of one role. */
export interface RunningProcess {
  role: Role;
  store: Store;
  logger: Logger;
  /** Shared by its parts: `draining` turns true when `stop` begins. */
  lifecycle: Lifecycle;
  /** The HTTP app of `serve` and `api`; null for a worker. */
  app: FastifyInstance | null;
  /** Where it answers: the HTTP address of `serve` and `api`, a worker's health port; null for none. */
  url: string | null;
  /** The worker of `serve` and `worker`; null for `api`. */
  worker: Worker | null;
  /**
   * Drains and stops (docs/operating.md, "Probes, draining and stopping"): `/readyz` says 503 at
   * once and new jobs are refused; the HTTP server answers for AGENTJOBS_DRAIN_SECONDS more, then
   * closes; meanwhile the worker stops claiming and hands back what it could not finish within the
   * grace period. Then the database closes. `drain: false` closes the port without the wait: for a
   * person at a terminal with nothing running, where no load balancer needs to hear first.
   */
  stop(options?: { drain?: boolean }): Promise<void>;
}
/** What runs jobs: `src/agent`'s `runAgent` and `createLanguageModel`. */
export interface Agent {
  runAgent: RunAgent;
  resolveModel: ResolveModel;
}

export interface StartOptions {
  /** The agent; by default the one in `src/agent`. Tests pass a fake. */
  agent?: Agent;
  /** A worker claims at most this many jobs, then `worker.finished` resolves (`--max-jobs`). */
  maxJobs?: number;
}

const realAgent: Agent = { runAgent, resolveModel: createLanguageModel };

/**
 * The code hosts of a server. They get what they need from the store, never the store: the
 * projects' secrets opened with the server's key (made on first use, so a server with only local
 * projects never needs it), the local pull-request records, the askpass folder and the public URL.
 */
export function createServerCodeHosts(
  config: Pick<Config, 'publicUrl' | 'dataDir'>,
  store: Store,
  options: { secrets: () => SecretBox; publicUrl?: () => string; metrics?: Metrics },
): CodeHosts {
  const { secrets, metrics, publicUrl = () => config.publicUrl } = options;
  return createCodeHosts({
    async secret(project) {
      try {
        return await store.projects.hostToken(project.id, secrets());
      } catch (error) {
        // A key that changed since the token was stored: say so, it is the operator's to fix.
        throw error instanceof SecretError ? new CodeHostError(error.message) : error;
      }
    },
    async contextSecret(project, name) {
      try {
        return await store.contextRepositories.token(project.id, name, secrets());
      } catch (error) {
        throw error instanceof SecretError ? new CodeHostError(error.message) : error;
      }
    },
    pullRequests: store.pullRequests,
    askpassDir: join(config.dataDir, 'askpass'),
    publicUrl,
    ...(metrics ? { observeRequest: (host, outcome) => metrics.codeHostRequest(host, outcome) } : {}),
  });
}

/** The version MCP clients are told. */
const MCP_SERVER_VERSION = '0.1.0';

/** What the HTTP app is built from: the API's options and the code hosts for the dashboard. */
export interface HttpAppOptions extends AppOptions {
  /** By default the server's own (`createServerCodeHosts`). */
  hosts?: CodeHosts;
}

/**
 * The HTTP app: the JSON API, and the dashboard under `/ui` registered beside it as a sibling
 * plugin (neither imports the other; what both need is in `src/http/`). Not listening yet.
 */
export async function buildHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { config, store } = options;
  const lifecycle = options.lifecycle ?? { draining: false };
  const hosts = options.hosts ?? createServerCodeHosts(config, store, { secrets: options.secrets });
  // A run started by hand groups only into a pull request the host says is still open.
  const pullRequestOpen =
    options.automations?.pullRequestOpen ?? pullRequestOpenOnHost({ store, hosts, log: options.logger });
  const app = await buildApp({
    ...options,
    lifecycle,
    automations: { ...options.automations, pullRequestOpen },
  });
  // MCP beside the v2 routes, over the same job operations; it checks keys as the API does.
  await app.register(mcpRoutes, {
    deps: { store, config, automations: config.automations, log: options.logger, lifecycle, pullRequestOpen },
    admit: (request, access) => admit(store, request, access),
    toAppError: (error) => toAppError(error as FastifyError, store.isTransient),
    version: MCP_SERVER_VERSION,
  });
  await app.register(dashboard, {
    prefix: '/ui',
    config,
    store,
    hosts,
    secrets: options.secrets,
    lifecycle,
  });
  await app.register(slackRoutes, slackRouteOptions(options));
  return app;
}

/**
 * Starts a process of `role`, its parts in one order for every role (`background/parts.ts`):
 * 1. the database (migrated at open);
 * 2. what serves the work: the job counts for `/metrics`, the checks' parse pool (closed only after
 *    the worker, whose checks may be parsing), a worker's probe and metrics ports (answering until
 *    its last job is over);
 * 3. the work: the HTTP server (`serve`, `api`), the worker (`serve`, `worker`), webhook delivery,
 *    automations and the closing of archived jobs' pull requests (every role, their claims make each
 *    run once across processes).
 * A part that fails to start stops every part started before it, and the error goes on.
 */
export async function startProcess(
  config: Config,
  role: Role,
  options: StartOptions = {},
): Promise<RunningProcess> {
  const logger = createLogger(config.logLevel, logDestination(config.logFormat));
  protectFiles(config, logger);
  // The dashboard signs its sessions with it; a lone worker only opens what is sealed already.
  if (role !== 'worker') ensureSecretKey(config);
  const parts = startParts(logger);
  // openStore closes what it opened when it fails.
  const store = await openStore(config);
  await parts.stage([{ name: 'the database', stop: () => store.close() }]);
  const metrics = new Metrics();
  const made: Made = { app: null, address: null, worker: null, publicUrl: config.publicUrl };
  // The one secret box of the process, handed to every part that seals or opens.
  const secrets = lazySecretBox(config);
  const assembly: Assembly = {
    config,
    logger,
    store,
    metrics,
    made,
    lifecycle: { draining: false },
    drain: true,
    secrets,
    // The public URL is known once the server listens: with an ephemeral port, the port is part of it.
    hosts: createServerCodeHosts(config, store, {
      secrets,
      publicUrl: () => made.publicUrl,
      metrics,
    }),
  };
  const ports =
    role === 'worker'
      ? workerPorts({
          config,
          metrics,
          ready: readinessCheck(store, assembly.lifecycle),
          stalled: () => made.worker?.stalled() ?? false,
        })
      : null;
  await parts.stage([
    runs('the job counts', jobCountLoop({ store, metrics, logger })),
    { name: 'the parse pool', stop: () => closeParsePool() },
    ports,
  ]);
  await parts.stage([
    role !== 'worker' && httpPart(assembly),
    role !== 'api' && workerPart(assembly, options),
    ...backgroundParts(assembly),
  ]);
  try {
    await announce(assembly, ports);
  } catch (error) {
    await parts.stop('now');
    throw error;
  }
  return {
    role,
    store,
    logger,
    lifecycle: assembly.lifecycle,
    app: made.app,
    url: made.address ?? ports?.health ?? null,
    worker: made.worker,
    async stop({ drain = true } = {}) {
      assembly.lifecycle.draining = true;
      assembly.drain = drain;
      await parts.stop('graceful');
    },
  };
}

/** What the stages make, read back once they started. */
interface Made {
  app: FastifyInstance | null;
  address: string | null;
  worker: Worker | null;
  publicUrl: string;
}

/** What the parts of a process are built from. */
interface Assembly {
  config: Config;
  logger: Logger;
  store: Store;
  metrics: Metrics;
  secrets: () => SecretBox;
  lifecycle: Lifecycle;
  hosts: CodeHosts;
  made: Made;
  /** Whether a graceful stop keeps the port answering for the drain period (`RunningProcess.stop`). */
  drain: boolean;
}

/** The API and the dashboard, listening; on a graceful stop they answer `drainMs` more, then close. */
function httpPart(assembly: Assembly): Part {
  const { config, store, logger, lifecycle, hosts, metrics, secrets, made } = assembly;
  return {
    name: 'the HTTP server',
    start: async () => {
      const modelStatus = defaultModelStatus(config);
      made.app = await buildHttpApp({
        config,
        store,
        logger,
        lifecycle,
        hosts,
        metrics,
        modelStatus,
        secrets,
      });
      made.address = await made.app.listen({ host: config.host, port: config.port });
      made.publicUrl = withListeningPort(config, made.address).publicUrl;
    },
    stop: async (mode) => {
      // Readiness already says 503; the port answers a while longer, until load balancers heard.
      if (mode === 'graceful' && assembly.drain && made.address) await sleep(config.lifecycle.drainMs);
      await made.app?.close();
    },
  };
}

/** The job worker; on a graceful stop its jobs get the grace period, on a failed start none. */
function workerPart({ config, store, logger, hosts, metrics, made }: Assembly, options: StartOptions): Part {
  return {
    name: 'the worker',
    start: async () => {
      // Links it makes (a local pull request's) name the port the server got.
      const workerConfig = made.address ? withListeningPort(config, made.address) : config;
      const agent = options.agent ?? realAgent;
      made.worker = createWorker({
        config: workerConfig,
        store,
        logger,
        hosts,
        metrics,
        ...agent,
        maxJobs: options.maxJobs,
      });
      await made.worker.start();
    },
    stop: (mode) => made.worker?.stop(mode === 'now' ? { graceMs: 0 } : {}),
  };
}

/**
 * What every role runs beside its work: webhook delivery, the automations, the closing of archived
 * jobs' pull requests; their claims make each run once across processes.
 */
function backgroundParts(assembly: Assembly): Part[] {
  const { config, store, logger, hosts, metrics, secrets, made } = assembly;
  const closer: { stop(): Promise<void> }[] = [];
  const automations = createAutomationLoops({
    store,
    logger,
    config,
    contentGitEnv: contentGitEnv(hosts),
    hosts,
    publicUrl: () => made.publicUrl,
  });
  return [
    runs('webhook delivery', makeDeliverer(config, store, logger, metrics, secrets)),
    runs('the automations', automations),
    {
      name: 'pull-request closing',
      start: async () => {
        closer.push(await startPullRequestCloser({ store, hosts, logger, intervalMs: config.worker.pollMs }));
      },
      stop: () => Promise.all(closer.map((each) => each.stop())),
    },
    slackPart({ ...assembly, publicUrl: () => made.publicUrl }),
  ];
}

/** The start's last words: the model jobs get, where it answers (the ready line), the first password. */
async function announce({ config, logger, store, made }: Assembly, ports: WorkerPorts | null): Promise<void> {
  announceModel(config, logger);
  const where = { dataDir: config.dataDir, dataDirSource: config.dataDirSource };
  if (!made.address) {
    logger.info(
      {
        ...where,
        worker: made.worker?.id,
        health: ports?.health ?? null,
        metrics: ports?.metrics ? `${ports.metrics}/metrics` : null,
      },
      'agentjobs worker is running',
    );
    return;
  }
  logger.info({ address: made.address, ...where, worker: made.worker !== null }, 'agentjobs is listening');
  await announceAdminPassword(config, store, made.address, logger);
}

/** A part that is started and stopped as a whole: a loop, the deliverer, the automations. */
const runs = (name: string, part: { start(): Promise<void>; stop(): Promise<void> }): Part => ({
  name,
  start: () => part.start(),
  stop: () => part.stop(),
});

/** How the poller fetches a project's content repository: as a worker does, through its host's askpass. */
const contentGitEnv = (hosts: CodeHosts) => (project: Project) => hosts(project.host).gitEnv(project);
