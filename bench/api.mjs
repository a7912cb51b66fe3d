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
// after this one, on a database of its own made the same way (an older build may not open a newer
// schema): a before and an after under the same conditions.
//
// Requests a second is a ratio of two things on a 2-core machine: the server's own cost and how fast
// the load generator, on the same cores, can send. The bare server is limited by the generator, a
// real server by its own work, so a quiet (fast) host raises the first far more than the second.
// Each run also reports the server process's CPU per request (Linux: /proc/PID/stat), which is
// the server's cost alone, and the pairs compare that too.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { scratchDatabase } from './postgres.mjs';
import { readStat, TICK_SECONDS } from './proc.mjs';
import { benchProject, firstLine, killedOnExit } from './processes.mjs';
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
  const child = killedOnExit(spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const [, port] = await firstLine(child, /listening (\d+)/);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill() };
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
  const child = killedOnExit(spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const [, address] = await firstLine(child, /listening (\S+)/);
  return { url: `${address}/v2/agent/p/job/${job.id}`, pid: child.pid, stop: () => child.kill() };
}

/** `agentjobs api` of the build at `cliPath` on a database of its own, with a project, a key and a job. */
async function startAgentjobs(databaseUrl, cliPath = CLI) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-'));
  const env = {
    AGENTJOBS_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
    AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000',
    // No worker runs here, so every created job stays active; with a cap the run would stop at it.
    AGENTJOBS_MAX_ACTIVE_JOBS: '0',
  };
  const { project, key } = benchProject(dataDir, env, cliPath);
  // The API role alone: with `serve`, its worker would claim every job the POST runs create and
  // run it to failure (no model), so POST would measure the worker too, and GET a failed job.
  const child = killedOnExit(
    spawn(process.execPath, [cliPath, 'api'], {
      env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const [, address] = await firstLine(child, /"address":"([^"]+)"/);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${address}/v2/agent/${project.id}/job`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: 'Benchmark job' }),
  });
  const job = await created.json();
  return {
    job,
    jobUrl: `${address}/v2/agent/${project.id}/job/${job.id}`,
    pid: child.pid,
    createUrl: `${address}/v2/agent/${project.id}/job`,
    headers,
    stop: () => {
      child.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU time (user + system) a process has used so far, in µs; null where /proc is missing. */
function cpuMicros(pid) {
  const stat = readStat(pid);
  return stat && (stat.utime + stat.stime) * TICK_SECONDS * 1e6;
}

/** Loads the server of process `pid` at `options`; its throughput, latency and CPU per request. */
async function drive(label, pid, options, duration = DURATION) {
  // V8 compiles a server's hot paths over its first seconds under load; without a warm-up the
  // average of a 10 s run would count them, and count them more for servers with more code.
  await autocannon({ connections: CONNECTIONS, duration: WARMUP, ...options });
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({ connections: CONNECTIONS, duration, ...options });
  const cpuAfter = cpuMicros(pid);
  const ok = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  const cpu = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / (ok + bad);
  return {
    label,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu,
    ok,
    bad,
  };
}

const rows = [];
const prompt = JSON.stringify({ prompt: 'Fix the typo on the home page' });

const sqlite = await startAgentjobs(null);
const bare = await startBare(sqlite.job);
rows.push(await drive('bare node:http GET (fixed job JSON)', bare.pid, { url: `${bare.url}/job` }));
rows.push(
  await drive('bare node:http POST', bare.pid, { url: `${bare.url}/job`, method: 'POST', body: prompt }),
);
const fastify = await startFastify(sqlite.job);
rows.push(await drive('Fastify alone GET (fixed job JSON)', fastify.pid, { url: fastify.url }));
fastify.stop();
rows.push(
  await drive('agentjobs GET job, SQLite', sqlite.pid, { url: sqlite.jobUrl, headers: sqlite.headers }),
);
rows.push(
  await drive('agentjobs POST job, SQLite', sqlite.pid, {
    url: sqlite.createUrl,
    method: 'POST',
    headers: sqlite.headers,
    body: prompt,
  }),
);

// The host's speed drifts (its cores are shared with other machines), and the runs above are
// minutes apart. The GET target is a ratio, so it is also measured in adjacent pairs: bare, then
// agentjobs, a few times over, each pair under the same conditions.
const before = BEFORE_CLI ? await startAgentjobs(null, BEFORE_CLI) : null;
const pairs = [];
for (let round = 0; round < PAIRED_ROUNDS; round++) {
  const bareRun = await drive('bare', bare.pid, { url: `${bare.url}/job` }, PAIRED_DURATION);
  const oursRun = await drive(
    'agentjobs',
    sqlite.pid,
    { url: sqlite.jobUrl, headers: sqlite.headers },
    PAIRED_DURATION,
  );
  const beforeRun =
    before &&
    (await drive('before', before.pid, { url: before.jobUrl, headers: before.headers }, PAIRED_DURATION));
  pairs.push({ bare: bareRun, ours: oursRun, before: beforeRun });
}
before?.stop();
bare.stop();
sqlite.stop();

const database = await scratchDatabase(POSTGRES);
if (database) {
  const postgres = await startAgentjobs(database.url);
  rows.push(
    await drive('agentjobs GET job, PostgreSQL', postgres.pid, {
      url: postgres.jobUrl,
      headers: postgres.headers,
    }),
  );
  rows.push(
    await drive('agentjobs POST job, PostgreSQL', postgres.pid, {
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

const bareGet = rows[0];
const barePost = rows[1];
const micros = (cpu) => (cpu === null ? '-' : cpu.toFixed(1));
/** What `run` achieves of `bare`: in requests a second, and in CPU per request (bare's over its own). */
const ofBare = (run, bare) => ({
  rps: run.rps / bare.rps,
  cpu: run.cpu === null || bare.cpu === null ? null : bare.cpu / run.cpu,
});
const percent = (ratio) => (ratio === null ? '-' : `${(ratio * 100).toFixed(0)} %`);
console.log(`\n${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s of warm-up, ${machine()}`);
printTable(
  ['run', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'CPU µs/req', 'vs bare, by CPU', '2xx', 'errors'],
  rows.map((row) => {
    const ratio = ofBare(row, row.label.includes('POST') ? barePost : bareGet);
    return [
      row.label,
      row.rps.toFixed(0),
      String(row.p50),
      String(row.p99),
      percent(ratio.rps),
      micros(row.cpu),
      percent(ratio.cpu),
      String(row.ok),
      String(row.bad),
    ];
  }),
);

const median = (values) =>
  values.includes(null) ? null : values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const medians = (runs) => {
  const ratios = pairs.map((pair) => ofBare(runs(pair), pair.bare));
  return `median ${percent(median(ratios.map((r) => r.rps)))} in req/s, ${percent(median(ratios.map((r) => r.cpu)))} by CPU per request`;
};
console.log(
  `\nGET job on SQLite against the bare server in adjacent pairs (${PAIRED_DURATION} s each after ${WARMUP} s of warm-up): ${medians((pair) => pair.ours)}`,
);
if (before) {
  console.log(
    `The build before (BENCH_BEFORE), run right after each pair: ${medians((pair) => pair.before)}`,
  );
}
const pairColumns = (run, bare) => {
  const ratio = ofBare(run, bare);
  return [run.rps.toFixed(0), micros(run.cpu), percent(ratio.rps), percent(ratio.cpu)];
};
printTable(
  [
    'pair',
    'bare req/s',
    'bare CPU µs',
    'agentjobs req/s',
    'agentjobs CPU µs',
    'vs bare',
    'by CPU',
    'agentjobs p99 ms',
    ...(before ? ['before req/s', 'before CPU µs', 'before vs bare', 'by CPU'] : []),
  ],
  pairs.map((pair, i) => {
    const ours = pairColumns(pair.ours, pair.bare);
    return [
      String(i + 1),
      pair.bare.rps.toFixed(0),
      micros(pair.bare.cpu),
      ...ours,
      String(pair.ours.p99),
      ...(pair.before ? pairColumns(pair.before, pair.bare) : []),
    ];
  }),
);
