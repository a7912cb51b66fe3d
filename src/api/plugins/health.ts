import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Store } from '../../store/store.js';
import type { Lifecycle } from './lifecycle.js';

export interface HealthOptions {
  store: Store;
  lifecycle: Lifecycle;
}

/**
 * `/healthz`: the process answers (for a liveness probe). `/readyz`: it can do work, meaning the
 * database answers and the process is not draining (for a load balancer).
 */
export async function healthRoutes(app: FastifyInstance, { store, lifecycle }: HealthOptions) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    if (lifecycle.draining) {
      throw new AppError('unavailable', 'The server is shutting down.', { retryAfterSeconds: 5 });
    }
    await store.ping();
    return { status: 'ready' };
  });
}
