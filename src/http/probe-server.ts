/**
 * A bare HTTP server for the `worker` role, which has no HTTP server of its own: `GET /healthz` and
 * `GET /readyz` for the orchestrator's probes (`AGENTJOBS_HEALTH_PORT`), and `GET /metrics` for
 * Prometheus (`AGENTJOBS_METRICS_PORT`); one server when the two ports are the same. Plain
 * `node:http`: three routes need no framework, and the worker should not load the API's.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import { DRAINING_RETRY_AFTER_SECONDS } from '../domain/lifecycle.js';
import { type Metrics, metricsAuthorized } from '../metrics/index.js';
import type { Readiness } from './readiness.js';

/** What `/healthz` answers: 200 with the first, 503 with the second. */
export type Liveness = { live: true } | { live: false; reason: 'heartbeat_stalled'; message: string };

/** The probes a worker answers. */
export interface Probes {
  live(): Liveness;
  ready(): Promise<Readiness>;
}

export interface ProbeServerOptions {
  host: string;
  port: number;
  /** Serves `/metrics` (with `token`, when set, as a Bearer token). */
  metrics?: { metrics: Metrics; token: string | null };
  /** Serves `/healthz` and `/readyz`. */
  probes?: Probes;
}

export interface ProbeServer {
  /** `http://host:port`, with the port the server got. */
  url: string;
  close(): Promise<void>;
}

type Route = (request: IncomingMessage, response: ServerResponse) => void;

export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const routes = new Map<string, Route>();
  if (options.metrics) routes.set('/metrics', metricsRoute(options.metrics));
  if (options.probes) {
    const { live, ready } = options.probes;
    routes.set('/healthz', (_request, response) => {
      const verdict = live();
      if (verdict.live) return answer(response, 200, { status: 'ok' });
      answer(response, 503, {
        live: false,
        reason: verdict.reason,
        error: verdict.message,
        code: 'unavailable',
      });
    });
    routes.set('/readyz', (_request, response) => {
      ready().then((verdict) => {
        if (verdict.ready) return answer(response, 200, { status: 'ready', ready: true });
        response.setHeader('retry-after', String(DRAINING_RETRY_AFTER_SECONDS));
        answer(response, 503, {
          ready: false,
          reason: verdict.reason,
          error: verdict.message,
          code: 'unavailable',
        });
      });
    });
  }
  const server: Server = createServer((request, response) => {
    const route = routes.get((request.url ?? '').split('?')[0] ?? '');
    if (!route) return answer(response, 404, { error: 'Not found.', code: 'not_found' });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return answer(response, 405, { error: 'Use GET.', code: 'method_not_allowed' });
    }
    route(request, response);
  });
  // Probes and scrapes come every few seconds; nothing should linger longer than one.
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

function metricsRoute({ metrics, token }: NonNullable<ProbeServerOptions['metrics']>): Route {
  return (request, response) => {
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
  };
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** A worker's own ports, started and stopped as one part of its process, and where they answer. */
export interface WorkerPorts {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The health port's address once started; null for none. */
  health: string | null;
  /** The metrics port's address once started (maybe the health port's); null for none. */
  metrics: string | null;
}

/**
 * A worker's own ports: `/healthz` and `/readyz` on AGENTJOBS_HEALTH_PORT, `/metrics` on
 * AGENTJOBS_METRICS_PORT, one server when the two are the same. Liveness fails when the worker's
 * heartbeat is stuck (`stalled`); readiness is the API's (database, migrations, not draining).
 */
export function workerPorts(options: {
  config: Pick<Config, 'host' | 'metrics' | 'lifecycle'>;
  metrics: Metrics;
  ready: () => Promise<Readiness>;
  stalled: () => boolean;
}): WorkerPorts {
  const { config, metrics, ready, stalled } = options;
  const { healthPort } = config.lifecycle;
  const metricsPort = config.metrics.port;
  const probes: Probes = {
    live: () =>
      stalled()
        ? { live: false, reason: 'heartbeat_stalled', message: 'The lease heartbeat has stopped running.' }
        : { live: true },
    ready,
  };
  const exposition = { metrics, token: config.metrics.token };
  const servers: ProbeServer[] = [];
  const ports: WorkerPorts = {
    name: 'the health and metrics ports',
    health: null,
    metrics: null,
    async start() {
      if (healthPort !== null) {
        const same = healthPort === metricsPort;
        const server = await startProbeServer({
          host: config.host,
          port: healthPort,
          probes,
          ...(same ? { metrics: exposition } : {}),
        });
        servers.push(server);
        ports.health = server.url;
        if (same) ports.metrics = server.url;
      }
      if (metricsPort !== null && ports.metrics === null) {
        const server = await startProbeServer({ host: config.host, port: metricsPort, metrics: exposition });
        servers.push(server);
        ports.metrics = server.url;
      }
    },
    async stop() {
      await Promise.all(servers.map((server) => server.close()));
    },
  };
  return ports;
}
