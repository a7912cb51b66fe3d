// Throughput and latency of the API, measured against the runtime's own limit.
//
//   npm run bench:api            (BENCH_DURATION=10 seconds per run after BENCH_WARMUP=3 seconds
//                                 of unmeasured load, BENCH_CONNECTIONS=50)
//
// Starts, one at a time: a bare node:http server that answers a fixed job JSON (what Node itself
// can do on this machine), Fastify alone answering the same JSON (the framework's floor), then the
// built `agentjobs api` on SQLite, then on PostgreSQL when
// DATABASE_URL or 127.0.0.1:5432 is reachable. Each runs in its own process; autocannon drives it
// from this one. Prints one table, then GET job on SQLite and the bare server measured in adjacent
// pairs (BENCH_PAIRED_ROUNDS=5), which is how the "vs bare" target is judged on a drifting host.
// BENCH_BEFORE=<another checkout's built dist/cli/main.js> adds that build to each round, right
// after this one, on the same database: a before and an after under the same conditions.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { scratchDatabase } from './postgres.mjs';
import { benchProject, firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const PAIRED_ROUNDS = Number(process.env.BENCH_PAIRED_ROUNDS ?? 5);
const PAIRED_DURATION = 5;
const CLI = path.resolve('dist/cli/main.js');
const BEFORE_CLI = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : null;
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function startBare(job) {
  const source = `
    const body = ${JSON.stringify(JSON.stringify(job))};
    require('node:http').createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json; charset=utf-8' });
        response.end(body);
      });
    }).listen(0, '127.0.0.1', function () { console.log('listening ' + this.address().port); });`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  const [, port] = await firstLine(child, /listening (\d+)/);
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

// The framework's own floor: Fastify answering the same fixed job JSON from a route of the same
// shape, with no hooks, logger, authentication or database. Not a target; it shows how much of the
// gap to the bare server is Fastify's rather than ours.
async function startFastify(job) {
  const source = `
    const job = ${JSON.stringify(job)};
    const app = require('fastify')({ logger: false });
    app.get('/v2/agent/:projectId/job/:jobId', async () => job);
    app.listen({ port: 0, host: '127.0.0.1' }).then((address) => console.log('listening ' + address));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  const [, address] = await firstLine(child, /listening (\S+)/);
  return { url: `${address}/v2/agent/p/job/${job.id}`, stop: () => child.kill() };
}

/** A second API process of another build, on the database of `of`. */
async function startBefore(of) {
  const child = spawn(process.execPath, [BEFORE_CLI, 'api'], {
    env: { ...process.env, ...of.env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, address] = await firstLine(child, /"address":"([^"]+)"/);
  return { jobUrl: of.jobUrl.replace(/^http:\/\/[^/]+/, address), stop: () => child.kill() };
}

async function startAgentjobs(databaseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-'));
  const env = {
    AGENTJOBS_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
    AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000',
    // No worker runs here, so every created job stays active; with a cap the run would stop at it.
    AGENTJOBS_MAX_ACTIVE_JOBS: '0',
  };
  const { project, key } = benchProject(dataDir, env);
  // The API role alone: with `serve`, its worker would claim every job the POST runs create and
  // run it to failure (no model), so POST would measure the worker too, and GET a failed job.
  const child = spawn(process.execPath, [CLI, 'api'], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, address] = await firstLine(child, /"address":"([^"]+)"/);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${address}/v2/agent/${project.id}/job`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: 'Benchmark job' }),
  });
  const job = await created.json();
  return {
    env,
    job,
    jobUrl: `${address}/v2/agent/${project.id}/job/${job.id}`,
    createUrl: `${address}/v2/agent/${project.id}/job`,
    headers,
    stop: () => {
      child.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function drive(label, options, duration = DURATION) {
  // V8 compiles a server's hot paths over its first seconds under load; without a warm-up the
  // average of a 10 s run would count them, and count them more for servers with more code.
  await autocannon({ connections: CONNECTIONS, duration: WARMUP, ...options });
  const result = await autocannon({ connections: CONNECTIONS, duration, ...options });
  const ok = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  return { label, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok, bad };
}

const rows = [];
const prompt = JSON.stringify({ prompt: 'Fix the typo on the home page' });

const sqlite = await startAgentjobs(null);
const bare = await startBare(sqlite.job);
rows.push(await drive('bare node:http GET (fixed job JSON)', { url: `${bare.url}/job` }));
rows.push(await drive('bare node:http POST', { url: `${bare.url}/job`, method: 'POST', body: prompt }));
const fastify = await startFastify(sqlite.job);
rows.push(await drive('Fastify alone GET (fixed job JSON)', { url: fastify.url }));
fastify.stop();
rows.push(await drive('agentjobs GET job, SQLite', { url: sqlite.jobUrl, headers: sqlite.headers }));
rows.push(
  await drive('agentjobs POST job, SQLite', {
    url: sqlite.createUrl,
    method: 'POST',
    headers: sqlite.headers,
    body: prompt,
  }),
);

// The host's speed drifts (its cores are shared with other machines), and the runs above are
// minutes apart. The GET target is a ratio, so it is also measured in adjacent pairs: bare, then
// agentjobs, a few times over, each pair under the same conditions.
const before = BEFORE_CLI ? await startBefore(sqlite) : null;
const pairs = [];
for (let round = 0; round < PAIRED_ROUNDS; round++) {
  const bareRun = await drive('bare', { url: `${bare.url}/job` }, PAIRED_DURATION);
  const oursRun = await drive('agentjobs', { url: sqlite.jobUrl, headers: sqlite.headers }, PAIRED_DURATION);
  const beforeRun =
    before && (await drive('before', { url: before.jobUrl, headers: sqlite.headers }, PAIRED_DURATION));
  pairs.push({ bare: bareRun, ours: oursRun, ratio: oursRun.rps / bareRun.rps, before: beforeRun });
}
before?.stop();
bare.stop();
sqlite.stop();

const database = await scratchDatabase(POSTGRES);
if (database) {
  const postgres = await startAgentjobs(database.url);
  rows.push(
    await drive('agentjobs GET job, PostgreSQL', { url: postgres.jobUrl, headers: postgres.headers }),
  );
  rows.push(
    await drive('agentjobs POST job, PostgreSQL', {
      url: postgres.createUrl,
      method: 'POST',
      headers: postgres.headers,
      body: prompt,
    }),
  );
  postgres.stop();
  await database.drop();
} else {
  console.log(`PostgreSQL not reachable at ${POSTGRES}: PostgreSQL rows skipped.`);
}

const bareGet = rows[0].rps;
const barePost = rows[1].rps;
console.log(`\n${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s of warm-up, ${machine()}`);
printTable(
  ['run', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', '2xx', 'errors'],
  rows.map((row) => [
    row.label,
    row.rps.toFixed(0),
    String(row.p50),
    String(row.p99),
    row.label.startsWith('bare')
      ? '100 %'
      : `${((row.rps / (row.label.includes('POST') ? barePost : bareGet)) * 100).toFixed(0)} %`,
    String(row.ok),
    String(row.bad),
  ]),
);

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const percent = (ratio) => `${(ratio * 100).toFixed(0)} %`;
console.log(
  `\nGET job on SQLite against the bare server in adjacent pairs (${PAIRED_DURATION} s each after ${WARMUP} s of warm-up); median ${percent(median(pairs.map((pair) => pair.ratio)))}`,
);
if (before) {
  const beforeRatios = pairs.map((pair) => pair.before.rps / pair.bare.rps);
  console.log(
    `The build before (BENCH_BEFORE), run right after each pair: median ${percent(median(beforeRatios))}`,
  );
}
printTable(
  [
    'pair',
    'bare req/s',
    'agentjobs req/s',
    'agentjobs p99 ms',
    'vs bare',
    ...(before ? ['before req/s', 'before vs bare'] : []),
  ],
  pairs.map((pair, i) => [
    String(i + 1),
    pair.bare.rps.toFixed(0),
    pair.ours.rps.toFixed(0),
    String(pair.ours.p99),
    percent(pair.ratio),
    ...(pair.before ? [pair.before.rps.toFixed(0), percent(pair.before.rps / pair.bare.rps)] : []),
  ]),
);
