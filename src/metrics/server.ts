import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Metrics, metricsAuthorized } from './index.js';

export interface MetricsServerOptions {
  metrics: Metrics;
  host: string;
  port: number;
  token: string | null;
}

export interface MetricsServer {
  /** `http://host:port`, with the port the server got. */
  url: string;
  close(): Promise<void>;
}

/**
 * A bare HTTP server that answers `GET /metrics` and nothing else, for the `worker` role, which
 * has no HTTP server of its own (`AGENTJOBS_METRICS_PORT`). Plain `node:http`: one route needs no
 * framework, and the worker should not load the API's.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { metrics, token } = options;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(response, 404, { error: 'Not found.', code: 'not_found' });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return answer(response, 405, { error: 'Use GET.', code: 'method_not_allowed' });
    }
    if (!metricsAuthorized(request.headers.authorization, token)) {
      response.setHeader('www-authenticate', 'Bearer realm="agentjobs"');
      return answer(response, 401, {
        error: 'Send the metrics token: Authorization: Bearer <AGENTJOBS_METRICS_TOKEN>.',
        code: 'unauthorized',
      });
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => answer(response, 500, { error: 'Could not collect the metrics.', code: 'internal_error' }),
    );
  });
  // Prometheus scrapes every few seconds; nothing should linger longer than a scrape.
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
