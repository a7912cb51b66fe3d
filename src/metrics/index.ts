/**
 * The Prometheus metrics of one process (docs/operating.md#metrics), on a registry of its own.
 * A leaf module: it imports prom-client and nothing of ours, so every layer may record into it.
 * The worker, the API and the code hosts are handed a `Metrics` (or one narrow method of it) by
 * `server.ts`; nothing reaches for a global.
 *
 * Labels are bounded: route templates rather than URLs, fixed outcome words, no job, project or
 * key ids, so the number of series does not grow with traffic.
 */
import { timingSafeEqual } from 'node:crypto';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** How a run ended, as `agentjobs_job_run_seconds{outcome}` counts it. */
export type RunOutcome = 'completed' | 'failed' | 'stopped' | 'released';

/** How one HTTP request to a code host went, as `agentjobs_code_host_requests_total{outcome}` counts it. */
export type CodeHostOutcome = 'ok' | 'client_error' | 'rate_limited' | 'server_error' | 'network_error';

/** What one run of the agent spent; the optional fields come when the agent reports them. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number | null;
  costUsd?: number | null;
}

/** Jobs in the database by status, and the active ones waiting for a worker. */
export interface JobCounts {
  byStatus: Record<string, number>;
  queued: number;
}

// Methods Node's parser accepts are a fixed set already; anything unusual folds into one label.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of a request no route matched (a 404), whatever its URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface MetricsOptions {
  /** Add prom-client's default `process_*` and `nodejs_*` metrics. Default true. */
  processMetrics?: boolean;
}

/** One process's metrics and the registry that serves them. */
export class Metrics {
  readonly registry = new Registry();

  readonly #httpRequests = new Counter({
    name: 'agentjobs_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: 'agentjobs_http_request_duration_seconds',
    help: 'Time from a request arriving to its response ending, by method and route template.',
    labelNames: ['method', 'route'] as const,
    // The API answers most reads in well under a millisecond; event streams last minutes.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly #jobs = new Gauge({
    name: 'agentjobs_jobs',
    help: 'Jobs in the database by status (database-wide, refreshed every few seconds).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly #queued = new Gauge({
    name: 'agentjobs_jobs_queued',
    help: 'Active jobs waiting for a worker (database-wide, refreshed every few seconds).',
    registers: [this.registry],
  });
  readonly #pickup = new Histogram({
    name: 'agentjobs_job_pickup_seconds',
    help: 'Time a job waited in the queue before a worker of this process claimed it.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly #run = new Histogram({
    name: 'agentjobs_job_run_seconds',
    help: 'Duration of one run of a job in this process (claim to end), by how it ended.',
    labelNames: ['outcome'] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600],
    registers: [this.registry],
  });
  readonly #tokens = new Counter({
    name: 'agentjobs_model_tokens_total',
    help: 'Model tokens spent by the runs of this process, by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly #cost = new Counter({
    name: 'agentjobs_model_cost_usd_total',
    help: "Model cost in US dollars of this process's runs, where the model's price is known.",
    registers: [this.registry],
  });
  readonly #codeHost = new Counter({
    name: 'agentjobs_code_host_requests_total',
    help: 'HTTP requests to code hosts (each attempt, retries included), by host and outcome.',
    labelNames: ['host', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #webhooks = new Counter({
    name: 'agentjobs_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #checks = new Counter({
    name: 'agentjobs_checks_total',
    help: "Runs of a project's checks before publishing, by check and outcome.",
    labelNames: ['check', 'outcome'] as const,
    registers: [this.registry],
  });

  // The labelled children of the HTTP metrics, kept per label set: prom-client hashes the labels
  // on every call otherwise, and this is the one metric recorded on every request.
  readonly #httpChildren = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  constructor(options: MetricsOptions = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    // Known label values start at zero, so that rates and alerts see a series before its first event.
    for (const kind of ['input', 'output', 'cached_input']) this.#tokens.labels(kind).inc(0);
    this.#cost.inc(0);
    this.#queued.set(0);
  }

  /** One answered HTTP request; `route` is the route template, or `UNMATCHED_ROUTE`. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.#httpChildren.get(key);
    if (!child) {
      const knownMethod = METHODS.has(method) ? method : 'OTHER';
      child = {
        count: this.#httpRequests.labels(knownMethod, route, String(status)),
        time: this.#httpDuration.labels(knownMethod, route),
      };
      this.#httpChildren.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  }

  /** The database-wide job counts (see `background/job-counts.ts`). */
  setJobCounts(counts: JobCounts): void {
    for (const [status, count] of Object.entries(counts.byStatus)) this.#jobs.labels(status).set(count);
    this.#queued.set(counts.queued);
  }

  /** A worker claimed a job that had waited `seconds` in the queue. */
  jobPickedUp(seconds: number): void {
    this.#pickup.observe(Math.max(0, seconds));
  }

  /** A run ended after `seconds`. */
  jobRunEnded(outcome: RunOutcome, seconds: number): void {
    this.#run.labels(outcome).observe(seconds);
  }

  /** What a run of the agent spent. */
  modelUsage(usage: ModelUsage): void {
    if (usage.inputTokens > 0) this.#tokens.labels('input').inc(usage.inputTokens);
    if (usage.outputTokens > 0) this.#tokens.labels('output').inc(usage.outputTokens);
    if (usage.cachedInputTokens) this.#tokens.labels('cached_input').inc(usage.cachedInputTokens);
    if (usage.costUsd) this.#cost.inc(usage.costUsd);
  }

  /** One HTTP request to a code host (`github`, `gitlab`, `gitea`). */
  codeHostRequest(host: string, outcome: CodeHostOutcome): void {
    this.#codeHost.labels(host, outcome).inc();
  }

  /** One webhook delivery attempt: `succeeded`, `failed` (will retry), `gave_up`… as the sender says. */
  webhookDelivery(outcome: string): void {
    this.#webhooks.labels(outcome).inc();
  }

  /** One run of a check (`check` is the check's name from a fixed set, never a path). */
  checkRan(check: string, outcome: string): void {
    this.#checks.labels(check, outcome).inc();
  }

  /** The Prometheus text exposition of every metric, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * Whether an Authorization header carries the metrics token: `Bearer <token>`, compared in
 * constant time. With no token configured, everyone may read the metrics.
 */
export function metricsAuthorized(header: string | undefined, token: string | null): boolean {
  if (token === null) return true;
  const presented = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (!presented) return false;
  const expected = Buffer.from(token);
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
