import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { jobApi } from '../support/e2e.js';
import { READY, startServerProcess } from '../support/processes.js';
import { labelValues, type MetricFamily, parsePrometheus, sample } from '../support/prometheus.js';
import { useScriptedServer } from '../support/scripted-server.js';

const TOKEN = 'metrics-token-for-the-e2e-test';
const PASSWORD = 'metrics e2e admin password';

/** Reads `/metrics` at `url` with the token; fails unless the answer is Prometheus text. */
async function scrape(url: string): Promise<{ text: string; families: Map<string, MetricFamily> }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, families: parsePrometheus(text) };
}

/** Scrapes until `ready` holds: the database-wide gauges refresh on a timer of a few seconds. */
async function scrapeUntil(url: string, ready: (families: Map<string, MetricFamily>) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const scraped = await scrape(url);
    if (ready(scraped.families) || Date.now() > deadline) return scraped;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// The built server and a worker process over real HTTP, a scripted model, real git: the metrics
// an operator would scrape, read back with a Prometheus text parser.
describe.each(testDialects())('metrics end to end on %s', (dialect) => {
  const scripted = useScriptedServer({
    name: 'metrics-e2e',
    dialect,
    env: { AGENTJOBS_ADMIN_PASSWORD: PASSWORD, AGENTJOBS_METRICS_TOKEN: TOKEN },
  });

  const { call: api, waitUntil } = jobApi(() => ({
    url: scripted.server.url,
    projectId: scripted.projectId,
    key: scripted.key,
  }));

  it('refuses /metrics without the token, or with another', async () => {
    const none = await fetch(`${scripted.server.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    const wrong = await fetch(`${scripted.server.url}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-for-the-e2e-tesT' },
    });
    expect(wrong.status).toBe(401);
    // An API key is not the metrics token.
    const apiKey = await fetch(`${scripted.server.url}/metrics`, {
      headers: { authorization: `Bearer ${scripted.key}` },
    });
    expect(apiKey.status).toBe(401);
  });

  it('counts requests, jobs, runs and tokens once a job completed and a 404 was served', async () => {
    scripted.model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n' } }] },
      { text: 'Add an FAQ\n\nI added faq.md.' },
    ]);
    const created = await api('POST', '/job', { prompt: 'Add an FAQ page' });
    expect(created.status).toBe(201);
    const job = await waitUntil(created.job.id, (j: Job) => j.status !== 'active');
    expect(job.status).toBe('completed');
    expect((await fetch(`${scripted.server.url}/no/such/page/${job.id}`)).status).toBe(404);

    const { text, families } = await scrapeUntil(
      `${scripted.server.url}/metrics`,
      (found) => sample(found, 'agentjobs_jobs', { status: 'completed' }) === 1,
    );

    // Requests by route template; the unmatched one under one label whatever its URL.
    const jobRoute = '/v2/agent/:projectId/job/:jobId';
    expect(
      sample(families, 'agentjobs_http_requests_total', { route: jobRoute, method: 'GET', status: '200' }),
    ).toBeGreaterThan(0);
    expect(
      sample(families, 'agentjobs_http_requests_total', {
        route: '/v2/agent/:projectId/job',
        method: 'POST',
        status: '201',
      }),
    ).toBe(1);
    expect(sample(families, 'agentjobs_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(families.get('agentjobs_http_request_duration_seconds')?.type).toBe('histogram');
    expect(sample(families, 'agentjobs_http_request_duration_seconds', { route: jobRoute })).toBeGreaterThan(
      0,
    );

    // The database-wide gauges, and what the worker in `serve` recorded.
    expect(families.get('agentjobs_jobs')?.type).toBe('gauge');
    expect(families.get('agentjobs_job_run_seconds')?.type).toBe('histogram');
    expect(sample(families, 'agentjobs_jobs', { status: 'active' })).toBe(0);
    expect(sample(families, 'agentjobs_jobs_queued')).toBe(0);
    expect(sample(families, 'agentjobs_job_pickup_seconds')).toBe(1);
    expect(sample(families, 'agentjobs_job_run_seconds', { outcome: 'completed' })).toBe(1);
    // Two model calls of the scripted model's 10 input and 5 output tokens.
    expect(sample(families, 'agentjobs_model_tokens_total', { kind: 'input' })).toBe(20);
    expect(sample(families, 'agentjobs_model_tokens_total', { kind: 'output' })).toBe(10);
    expect(families.has('agentjobs_model_cost_usd_total')).toBe(true);
    for (const name of [
      'agentjobs_code_host_requests_total',
      'agentjobs_webhook_deliveries_total',
      'agentjobs_checks_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} counter`);
    }
    expect(families.has('process_cpu_seconds_total')).toBe(true);
    expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);

    // Bounded labels: no id of a job, project or key, and no secret, anywhere in the answer.
    for (const secret of [job.id, scripted.projectId, scripted.key, TOKEN, PASSWORD])
      expect(text).not.toContain(secret);
    for (const value of labelValues(families)) expect(value).not.toMatch(/ajs_|[0-9A-HJKMNP-TV-Z]{26}/);

    // The Grafana dashboard in docs/ graphs only what the server exports.
    const dashboard = fs.readFileSync(path.resolve('docs/grafana-dashboard.json'), 'utf8');
    const graphed = new Set(dashboard.match(/\b(agentjobs|process|nodejs)_[a-z0-9_]+/g));
    for (const name of graphed) {
      expect(families.has(name.replace(/_(bucket|count|sum)$/, '')), name).toBe(true);
    }
  });

  it('serves a worker process its own /metrics, and its probes, on AGENTJOBS_METRICS_PORT', async () => {
    const worker = await startServerProcess({ ...scripted.env, AGENTJOBS_METRICS_PORT: '0' }, 'worker');
    try {
      const ready = worker.output.find((line) => line.includes(READY.worker)) ?? '{}';
      const { metrics } = JSON.parse(ready) as { metrics?: string };
      expect(metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await fetch(metrics ?? '')).status).toBe(401);
      expect((await fetch((metrics ?? '').replace(/metrics$/, 'other'))).status).toBe(404);
      // The probes answer on the same port: AGENTJOBS_HEALTH_PORT defaults to the metrics port.
      const base = (metrics ?? '').replace(/\/metrics$/, '');
      expect(worker.url).toBe(base);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ ready: true });
      const { families } = await scrapeUntil(
        metrics ?? '',
        (found) => sample(found, 'agentjobs_jobs', { status: 'completed' }) === 1,
      );
      expect(sample(families, 'agentjobs_jobs', { status: 'completed' })).toBe(1);
      // A worker answers no API requests.
      expect(families.get('agentjobs_http_requests_total')?.samples).toEqual([]);
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  });
});
