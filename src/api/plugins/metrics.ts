import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.js';
import { type Metrics, metricsAuthorized, UNMATCHED_ROUTE } from '../../metrics/index.js';

export interface MetricsPluginOptions {
  metrics: Metrics;
  /** `AGENTJOBS_METRICS_TOKEN`: when set, `/metrics` needs it as a Bearer token. */
  token: string | null;
}

/**
 * `GET /metrics` in the Prometheus text format, and the HTTP metrics of every request this server
 * answers (the dashboard's too: the hook is on the root). The hook runs once a response has
 * ended, off the response's path, and labels it with the route's template
 * (`/v2/agent/:projectId/job/:jobId`), never its URL; a request no route matched is one label.
 */
export const metricsPlugin = fp(async (app: FastifyInstance, { metrics, token }: MetricsPluginOptions) => {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!metricsAuthorized(request.headers.authorization, token)) {
      throw new AppError(
        'unauthorized',
        'Send the metrics token: Authorization: Bearer <AGENTJOBS_METRICS_TOKEN>.',
      );
    }
    const { contentType, body } = await metrics.exposition();
    return reply.type(contentType).send(body);
  });
});
