import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.js';
import type { Store } from '../../store/store.js';

const HOUR_MS = 60 * 60 * 1000;

export interface ProjectBudgetOptions {
  store: Store;
  /** Creates and follow-ups a project may make per hour. */
  requestsPerHour: number;
}

/**
 * The per-project budget for creates and follow-ups. Routes opt in with `config.rateLimit`. The
 * count lives in the database, so it holds across every API process; it runs after authentication
 * (preHandler), so strangers cannot spend a project's budget.
 */
export const projectBudget = fp(
  async (app: FastifyInstance, { store, requestsPerHour }: ProjectBudgetOptions) => {
    await app.register(rateLimit, {
      global: false,
      hook: 'preHandler',
      enableDraftSpec: true,
      max: requestsPerHour,
      timeWindow: HOUR_MS,
      keyGenerator: (request) => `project:${(request.params as { projectId: string }).projectId}`,
      errorResponseBuilder: (_request, context) =>
        new AppError(
          'rate_limited',
          `This project used its budget of ${context.max} jobs and follow-ups per hour; retry in ${context.after}.`,
        ),
      store: class DatabaseRateLimitStore {
        incr(
          key: string,
          callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
          timeWindow: number,
        ) {
          store.rateLimits.hit(key, timeWindow).then(
            ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
            (error: Error) => callback(error),
          );
        }
        child() {
          return this;
        }
      },
    });
  },
);
