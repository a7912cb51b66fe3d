// The instrumentation alone, in one process: the cost of recording one request in the HTTP
// metrics, and of rendering one scrape, without the server or the load generator around them.
//
//   npm run build && node bench/metrics-per-call.mjs
import { Metrics } from '../dist/metrics/index.js';

const m = new Metrics({ processMetrics: false });
const routes = ['/v2/agent/:projectId/job/:jobId', '/v2/agent/:projectId/job', 'unmatched'];
for (let round = 0; round < 3; round++) {
  const n = 1_000_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) m.httpRequest('GET', routes[i % 3], 200, 0.0004);
  const ns = Number(process.hrtime.bigint() - t) / n;
  console.log(`httpRequest: ${ns.toFixed(0)} ns per call`);
}
const t = process.hrtime.bigint();
for (let i = 0; i < 200; i++) await m.exposition();
console.log(
  `exposition (no process metrics): ${(Number(process.hrtime.bigint() - t) / 200 / 1e6).toFixed(3)} ms`,
);
const full = new Metrics();
const t2 = process.hrtime.bigint();
for (let i = 0; i < 200; i++) await full.exposition();
console.log(
  `exposition (with process metrics): ${(Number(process.hrtime.bigint() - t2) / 200 / 1e6).toFixed(3)} ms`,
);
process.exit(0);
