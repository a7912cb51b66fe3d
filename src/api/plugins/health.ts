import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Lifecycle } from '../../http/lifecycle.js';
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
 * `/healthz`: the process answers (for a liveness probe). `/readyz`: it can do work, meaning the
 * database answers and the process is not draining (for a load balancer). `/healthz` also says
 * whether the default model can be used, so `agentjobs quickstart` can warn before a job fails.
 */
export async function healthRoutes(app: FastifyInstance, { store, lifecycle, modelStatus }: HealthOptions) {
  app.get('/healthz', { schema: { hide: true } }, async () =>
    modelStatus ? { status: 'ok', model: modelStatus } : { status: 'ok' },
  );
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (lifecycle.draining) {
      throw new AppError('unavailable', 'The server is shutting down.', { retryAfterSeconds: 5 });
    }
    await store.ping();
    return { status: 'ready' };
  });
}
