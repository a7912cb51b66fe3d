import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.js';
import type { Lifecycle } from '../domain/lifecycle.js';
import { installErrorHandling } from '../http/errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/index.js';
import { processHostEvent } from '../operations/host-events.js';
import type { RecordResult } from '../store/host-events.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { limitConnections, serverOptions } from './http-server.js';
import { apiKeyAuth } from './plugins/api-key-auth.js';
import { healthRoutes, type ModelStatus } from './plugins/health.js';
import { jsonBody } from './plugins/json-body.js';
import { metricsPlugin } from './plugins/metrics.js';
import { openApi } from './plugins/openapi.js';
import { type AutomationRoutesOptions, automationRoutes } from './routes/automations.js';
import { eventRoutes } from './routes/events.js';
import { type HookRoutesOptions, hookRoutes } from './routes/hooks.js';
import { jobRoutes } from './routes/jobs.js';
import { linearHookRoutes, linearSecretRoutes } from './routes/linear.js';
import { webhookRoutes } from './routes/webhooks.js';

export interface AppOptions {
  config: Config;
  store: Store;
  logger: Logger;
  /** Shared with the process: once draining, `/readyz` and new work answer 503. */
  lifecycle?: Lifecycle;
  /** The process's metrics: served at `/metrics`, and every request is counted. None: neither. */
  metrics?: Metrics;
  /** Whether the default model can be used, for `/healthz`; none: not said. */
  modelStatus?: ModelStatus;
  /** The process's secret box (`lazySecretBox`), for webhook signing secrets. */
  secrets: () => SecretBox;
  /** What the code-host webhook receiver is given beyond the store (context repositories, the automations' note of each delivery). */
  hooks?: Pick<HookRoutesOptions, 'contextCandidates' | 'onRecorded'>;
  /**
   * What the automation routes look up elsewhere: the names of a project's context repositories
   * (none without it) and whether a job's pull request is open (the default rule without it).
   */
  automations?: Pick<AutomationRoutesOptions, 'contextRepositoryNames' | 'pullRequestOpen'>;
}

/**
 * Builds the JSON API (v2, health, OpenAPI) on a Fastify instance without listening, so tests can
 * `inject` into it. `server.ts` registers the dashboard beside it (`buildHttpApp`).
 */
export async function buildApp({
  config,
  store,
  logger,
  lifecycle = { draining: false },
  metrics,
  modelStatus,
  secrets,
  hooks,
  automations,
}: AppOptions) {
  const app = Fastify(serverOptions(config, logger)).withTypeProvider<ZodTypeProvider>();
  limitConnections(app.server, config.limits.maxConnections, logger);

  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from typed objects; validating them again on every request would cost
  // throughput for nothing. The schemas still describe them in OpenAPI, and tests check them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandling(app, store.isTransient);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  if (metrics) await app.register(metricsPlugin, { metrics, token: config.metrics.token });
  await app.register(jsonBody);
  await app.register(openApi, { publicUrl: config.publicUrl });
  await app.register(healthRoutes, { store, lifecycle, modelStatus });

  // The code hosts' webhooks: no API key, the host's signature; a raw-body parser of their own.
  // A repeated delivery starts nothing; each automation it concerns records a `duplicate` run.
  const noteDuplicate = async (result: RecordResult) => {
    if (!result.duplicate) return;
    const deps = { store, config, automations: config.automations, log: logger };
    await processHostEvent(deps, result.event, { duplicate: true });
  };
  await app.register(hookRoutes, { store, secrets, onRecorded: noteDuplicate, ...hooks });
  await app.register(linearHookRoutes, { store, secrets, onRecorded: noteDuplicate });

  // The v2 routes, each behind an admin API key.
  await app.register(async (v2) => {
    await v2.register(apiKeyAuth, { store });
    await v2.register(jobRoutes, { config, store, lifecycle });
    await v2.register(webhookRoutes, { config, store, secrets });
    await v2.register(automationRoutes, { config, store, lifecycle, ...automations });
    await v2.register(linearSecretRoutes, { store, secrets });
    await v2.register(eventRoutes, { store, maxStreamsPerKey: config.limits.streamsPerKey });
  });

  return app as unknown as FastifyInstance;
}
