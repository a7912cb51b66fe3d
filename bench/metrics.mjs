// What the metrics cost: GET job throughput of the API with and without the per-request
// instrumentation (and the process metrics and job-count timer that come with it), and the cost of
// serving one /metrics scrape.
//
//   npm run build && node bench/metrics.mjs   (BENCH_ROUNDS=3 adjacent pairs of BENCH_DURATION=5 s
//                                              after BENCH_WARMUP=3 s, BENCH_CONNECTIONS=50)
//
// Each server is the built API (`buildApp`) on SQLite in a process of its own, started twice on one
// database: once with a `Metrics` (as `serve` and `api` run) and once without. Runs alternate
// without/with, so each pair sees the same host conditions.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const dist = pathToFileURL(path.resolve('dist')).href;

// The server process: the API alone, with or without metrics, a project, a key and one job made
// straight in the store, then one line with what the load generator needs.
const serverSource = (withMetrics) => `
  import { buildApp } from '${dist}/api/app.js';
  import { loadConfig } from '${dist}/config/config.js';
  import { generateKey } from '${dist}/domain/keys.js';
  import { createLogger } from '${dist}/log.js';
  import { Metrics } from '${dist}/metrics/index.js';
  import { jobCountLoop } from '${dist}/background/job-counts.js';
  import { openStore } from '${dist}/store/open.js';
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'info', AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000' });
  const store = await openStore(config);
  const metrics = ${withMetrics} ? new Metrics() : undefined;
  if (metrics) await jobCountLoop({ store, metrics, logger: createLogger('info') }).start();
  const app = await buildApp({ config, store, logger: createLogger('info'), metrics });
  const [project] = await store.projects.list();
  const chosen = project ?? (await store.projects.create({ name: 'Bench', repository: '/srv/bench.git' }));
  const key = generateKey();
  await store.apiKeys.create({ projectId: chosen.id, key, name: 'bench', scopes: ['read', 'write'], ipAllowlist: null, expiresAt: null });
  const job = await store.jobs.create({ projectId: chosen.id, prompt: 'Benchmark job', model: null, baseRef: 'main', repository: '/srv/bench.git', draft: false, maxActive: 0 });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log('ready ' + JSON.stringify({ jobUrl: address + '/v2/agent/' + chosen.id + '/job/' + job.id, metricsUrl: address + '/metrics', key }));
`;

async function startServer(dataDir, withMetrics) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', serverSource(withMetrics)], {
    env: { ...process.env, AGENTJOBS_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, json] = await firstLine(child, /ready (\{.*\})/);
  return { ...JSON.parse(json), stop: () => child.kill() };
}

async function drive(options, duration = DURATION, connections = CONNECTIONS) {
  await autocannon({ connections, duration: WARMUP, ...options });
  const result = await autocannon({ connections, duration, ...options });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-metrics-'));
const pairs = [];
let scrape;
try {
  for (let round = 0; round < ROUNDS; round++) {
    const run = {};
    for (const withMetrics of [false, true]) {
      const server = await startServer(dataDir, withMetrics);
      const headers = { authorization: `Bearer ${server.key}` };
      run[withMetrics ? 'with' : 'without'] = await drive({ url: server.jobUrl, headers });
      if (withMetrics && round === 0) {
        const body = await (await fetch(server.metricsUrl)).text();
        // One scraper at a time, as Prometheus scrapes a target.
        scrape = { ...(await drive({ url: server.metricsUrl }, DURATION, 1)), bytes: body.length };
      }
      server.stop();
    }
    pairs.push(run);
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

console.log(
  `\nGET job on SQLite, ${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s of warm-up, ${machine()}`,
);
printTable(
  ['pair', 'without req/s', 'with req/s', 'with / without', 'without p99 ms', 'with p99 ms', 'errors'],
  pairs.map((pair, i) => [
    String(i + 1),
    pair.without.rps.toFixed(0),
    pair.with.rps.toFixed(0),
    `${((pair.with.rps / pair.without.rps) * 100).toFixed(0)} %`,
    String(pair.without.p99),
    String(pair.with.p99),
    String(pair.without.bad + pair.with.bad),
  ]),
);
console.log(`\nGET /metrics, one connection, ${DURATION} s`);
printTable(
  ['scrapes/s', 'p50 ms', 'p99 ms', 'body bytes', 'errors'],
  [[scrape.rps.toFixed(0), String(scrape.p50), String(scrape.p99), String(scrape.bytes), String(scrape.bad)]],
);
