/**
 * The one place that builds the parts and wires them together: the store, the code hosts (once),
 * the HTTP app (the API and the dashboard side by side) and the worker.
 */
import { join } from 'node:path';
import type { FastifyError, FastifyInstance } from 'fastify';
import { runAgent } from './agent/loop.js';
import { createLanguageModel } from './agent/models.js';
import { type AppOptions, buildApp } from './api/app.js';
import { admit } from './api/auth.js';
import { createAutomationLoops } from './background/automations.js';
import { startPullRequestCloser } from './background/close-pull-requests.js';
import { createDeliverer, type Deliverer } from './background/deliverer.js';
import { createWorker, type Worker } from './background/worker.js';
import { closeParsePool } from './checks/index.js';
import type { Config } from './config/config.js';
import type { Project } from './domain/project.js';
import { CodeHostError, type CodeHosts, createCodeHosts } from './hosts/index.js';
import { toAppError } from './http/errors.js';
import { drainingError } from './http/lifecycle.js';
import { createLogger, type Logger, logDestination } from './log.js';
import { mcpRoutes } from './mcp/http.js';
import { Metrics } from './metrics/index.js';
import { startJobCountRefresh } from './metrics/job-counts.js';
import { type MetricsServer, startMetricsServer } from './metrics/server.js';
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
import type { ResolveModel, RunAgent } from './worker/agent-port.js';

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

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  logger: Logger;
  url: string;
  /** The in-process worker (`agentjobs serve`), or null for the API role. */
  worker: Worker | null;
  /**
   * Stops taking requests and lets those in flight finish; meanwhile the worker stops claiming and
   * hands back what it could not finish within the grace period. Then closes the database.
   */
  stop(): Promise<void>;
}

/** What runs jobs: `src/agent`'s `runAgent` and `createLanguageModel`. */
export interface Agent {
  runAgent: RunAgent;
  resolveModel: ResolveModel;
}

export interface StartOptions {
  /** Run a worker in this process too (`agentjobs serve`). Default false (`agentjobs api`). */
  worker?: boolean;
  /** The agent; by default the one in `src/agent`. Tests pass a fake. */
  agent?: Agent;
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

/**
 * The process's metrics, with the database-wide gauges kept fresh on a timer. One per process:
 * `serve`, `api` and `worker` each serve their own (DESIGN section 3).
 */
function processMetrics(store: Store, logger: Logger) {
  const metrics = new Metrics();
  const stopRefresh = startJobCountRefresh({
    metrics,
    read: () => store.stats.jobCounts(),
    onError: (error) => logger.warn({ err: error }, 'could not read the job counts for /metrics'),
  });
  return { metrics, stopRefresh };
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
  const app = await buildApp({ ...options, lifecycle });
  // MCP beside the v2 routes, over the same job operations; it checks keys as the API does.
  await app.register(mcpRoutes, {
    deps: { store, config, automations: config.automations, log: options.logger },
    admit: async (request, access) => {
      if (lifecycle.draining && access.scope === 'write') throw drainingError();
      return admit(store, request, access);
    },
    toAppError: (error) => toAppError(error as FastifyError, store.isTransient),
    version: MCP_SERVER_VERSION,
  });
  await app.register(dashboard, {
    prefix: '/ui',
    config,
    store,
    hosts: options.hosts ?? createServerCodeHosts(config, store, { secrets: options.secrets }),
    secrets: options.secrets,
    lifecycle,
  });
  return app;
}

/** Starts the HTTP API, and with `worker: true` a worker beside it, and listens. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel, logDestination(config.logFormat));
  protectFiles(config, logger);
  ensureSecretKey(config);
  // The one secret box of the process, handed to every part that seals or opens.
  const secrets = lazySecretBox(config);
  const store = await openStore(config);
  const lifecycle = { draining: false };
  let worker: Worker | null = null;
  const { metrics, stopRefresh } = processMetrics(store, logger);
  const deliverer = makeDeliverer(config, store, logger, metrics, secrets);
  // Known once the server listens: with an ephemeral port, the port is part of it.
  let publicUrl = config.publicUrl;
  const hosts = createServerCodeHosts(config, store, { secrets, publicUrl: () => publicUrl, metrics });
  // Every role runs schedules, code-host events and the poll; claims make each run once across processes.
  const automations = createAutomationLoops({
    store,
    logger,
    config,
    contentGitEnv: contentGitEnv(hosts),
    hosts,
    publicUrl: () => publicUrl,
  });
  let closer: Awaited<ReturnType<typeof startPullRequestCloser>> | null = null;
  try {
    const modelStatus = defaultModelStatus(config);
    const app = await buildHttpApp({
      config,
      store,
      logger,
      lifecycle,
      hosts,
      metrics,
      modelStatus,
      secrets,
    });
    const address = await app.listen({ host: config.host, port: config.port });
    publicUrl = withListeningPort(config, address).publicUrl;
    if (options.worker) {
      const workerConfig = withListeningPort(config, address);
      worker = createWorker({
        config: workerConfig,
        store,
        logger,
        hosts,
        metrics,
        ...(options.agent ?? realAgent),
      });
      await worker.start();
    }
    await deliverer.start();
    await automations.start();
    // Every role closes archived jobs' pull requests, as every role delivers webhooks.
    closer = await startPullRequestCloser({ store, hosts, logger, intervalMs: config.worker.pollMs });
    announceModel(config, logger);
    logger.info(
      { address, dataDir: config.dataDir, dataDirSource: config.dataDirSource, worker: worker !== null },
      'agentjobs is listening',
    );
    await announceAdminPassword(config, store, address, logger);
    return {
      app,
      store,
      logger,
      url: address,
      worker,
      async stop() {
        lifecycle.draining = true;
        await Promise.all([
          app.close(),
          worker?.stop(),
          deliverer.stop(),
          automations.stop(),
          closer?.stop(),
        ]);
        // After the worker: its checks may be parsing until it stops.
        await closeParsePool();
        stopRefresh();
        await store.close();
      },
    };
  } catch (error) {
    stopRefresh();
    await Promise.all([worker?.stop({ graceMs: 0 }), deliverer.stop(), automations.stop()]);
    await store.close();
    throw error;
  }
}

export interface RunningWorker {
  worker: Worker;
  store: Store;
  logger: Logger;
  /** Stops the worker (see `Worker.stop`) and closes the database. */
  stop(): Promise<void>;
}

/**
 * Starts a worker alone (`agentjobs worker`): no API, only the database and the repositories; with
 * AGENTJOBS_METRICS_PORT, a bare HTTP server for `/metrics` on that port.
 */
export async function startWorkerProcess(
  config: Config,
  options: { agent?: Agent } = {},
): Promise<RunningWorker> {
  const logger = createLogger(config.logLevel, logDestination(config.logFormat));
  protectFiles(config, logger);
  const secrets = lazySecretBox(config);
  const store = await openStore(config);
  const { metrics, stopRefresh } = processMetrics(store, logger);
  const deliverer = makeDeliverer(config, store, logger, metrics, secrets);
  const hosts = createServerCodeHosts(config, store, { secrets, metrics });
  const automations = createAutomationLoops({
    store,
    logger,
    config,
    contentGitEnv: contentGitEnv(hosts),
    hosts,
  });
  let metricsServer: MetricsServer | null = null;
  try {
    const worker = createWorker({ config, store, logger, hosts, metrics, ...(options.agent ?? realAgent) });
    if (config.metrics.port !== null) {
      metricsServer = await startMetricsServer({
        metrics,
        host: config.host,
        port: config.metrics.port,
        token: config.metrics.token,
      });
    }
    await worker.start();
    await deliverer.start();
    await automations.start();
    const closer = await startPullRequestCloser({ store, hosts, logger, intervalMs: config.worker.pollMs });
    announceModel(config, logger);
    logger.info(
      {
        dataDir: config.dataDir,
        dataDirSource: config.dataDirSource,
        worker: worker.id,
        metrics: metricsServer ? `${metricsServer.url}/metrics` : null,
      },
      'agentjobs worker is running',
    );
    return {
      worker,
      store,
      logger,
      async stop() {
        const background = [deliverer.stop(), automations.stop(), closer.stop()];
        await Promise.all([worker.stop(), ...background, metricsServer?.close()]);
        await closeParsePool();
        stopRefresh();
        await store.close();
      },
    };
  } catch (error) {
    stopRefresh();
    await Promise.all([deliverer.stop(), automations.stop(), metricsServer?.close()]);
    await store.close();
    throw error;
  }
}

/** How the poller fetches a project's content repository: as a worker does, through its host's askpass. */
const contentGitEnv = (hosts: CodeHosts) => (project: Project) => hosts(project.host).gitEnv(project);
