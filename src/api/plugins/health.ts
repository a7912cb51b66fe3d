import type { FastifyInstance } from 'fastify';
import { DRAINING_RETRY_AFTER_SECONDS, type Lifecycle } from '../../domain/lifecycle.js';
import { readinessCheck } from '../../http/readiness.js';
import type { Store } from '../../store/store.js';

/**
 * Whether jobs that name no model of their own can run on this process: `ready` (a provider is
 * configured for the default model), `demo` (the built-in demo model) or `missing`.
 */
export type ModelStatus = 'ready' | 'demo' | 'missing';

export interface HealthOptions {
  store: Store;
  lifecycle: Lifecycle;
  /** Shown by `/healthz` when given, for `agentjobs quickstart`: no model id, no key, only this word. */
  modelStatus?: ModelStatus | undefined;
}

/**
 * `/healthz`: the process answers (a liveness probe; a failing database does not fail it, since a
 * restart would not bring the database back). `/readyz`: it can take work: the database answers,
 * its migrations are current, the process is not draining (a readiness probe, a load balancer).
 * `/healthz` also says whether the default model can be used, so `agentjobs quickstart` can warn
 * before a job fails. No key: probes come from the orchestrator, and neither answer says more.
 */
export async function healthRoutes(app: FastifyInstance, { store, lifecycle, modelStatus }: HealthOptions) {
  const readiness = readinessCheck(store, lifecycle);
  // Not in the OpenAPI document, as `/metrics` is not: they are for operators' tools, not clients.
  app.get('/healthz', { schema: { hide: true } }, async () =>
    modelStatus ? { status: 'ok', model: modelStatus } : { status: 'ok' },
  );
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const verdict = await readiness();
    if (verdict.ready) return { status: 'ready', ready: true };
    reply.code(503).header('retry-after', String(DRAINING_RETRY_AFTER_SECONDS));
    // `error` and `code` as every other refusal of the API, for clients that read those.
    return { ready: false, reason: verdict.reason, error: verdict.message, code: 'unavailable' };
  });
}
