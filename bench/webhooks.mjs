// Webhook delivery latency: from the event (the job change that wrote it to the outbox) to the
// receiver, for 1,000 jobs' events.
//
//   npm run bench:webhooks       (BENCH_JOBS=1000, BENCH_CONCURRENCY=10)
//
// For each database (SQLite; PostgreSQL when BENCH_POSTGRES_URL or 127.0.0.1:5432 is reachable) it
// starts the built `agentjobs api` (no worker, so each job makes one event, `job.created`), adds an
// endpoint pointing at a receiver in this process, creates the jobs over the API with a few requests
// in flight, and measures for each event the time from the payload's `timestamp` (written in the
// job's create transaction) to the moment the receiver has the whole request. Same machine, same
// clock. The receiver answers 204 at once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { scratchDatabase } from './postgres.mjs';
import { benchProject, firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const JOBS = Number(process.env.BENCH_JOBS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const CLI = path.resolve('dist/cli/main.js');
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A receiver that notes when each event arrived and how late. */
async function startReceiver() {
  const latencies = [];
  const seen = new Set();
  let duplicates = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      response.writeHead(204).end();
      const id = request.headers['webhook-id'];
      if (seen.has(id)) {
        duplicates++;
        return;
      }
      seen.add(id);
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      latencies.push(arrived - Date.parse(timestamp));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    latencies,
    duplicates: () => duplicates,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function run(label, databaseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-webhooks-'));
  const env = {
    AGENTJOBS_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
    AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000',
    AGENTJOBS_MAX_ACTIVE_JOBS: '0',
    AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'warn',
  };
  const { project, key } = benchProject(dataDir, env);
  const child = spawn(process.execPath, [CLI, 'api'], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const receiver = await startReceiver();
  try {
    const [, address] = await firstLine(child, /"address":"([^"]+)"/);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const hook = await fetch(`${address}/v2/agent/${project.id}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    if (hook.status !== 201) throw new Error(`webhook create: ${hook.status} ${await hook.text()}`);
    const started = Date.now();
    let next = 0;
    const creator = async () => {
      while (next < JOBS) {
        next++;
        const response = await fetch(`${address}/v2/agent/${project.id}/job`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ prompt: 'Fix the typo on the home page' }),
        });
        if (response.status !== 201) throw new Error(`job create: ${response.status}`);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, creator));
    const deadline = Date.now() + 120_000;
    while (receiver.latencies.length < JOBS && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const seconds = (Date.now() - started) / 1000;
    const sorted = [...receiver.latencies].sort((a, b) => a - b);
    return [
      label,
      String(JOBS),
      String(sorted.length),
      String(percentile(sorted, 50)),
      String(percentile(sorted, 99)),
      String(sorted.at(-1)),
      String(Math.round(sorted.length / seconds)),
      String(receiver.duplicates()),
    ];
  } finally {
    child.kill();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows = [await run('SQLite', null)];
const postgres = await scratchDatabase(POSTGRES);
if (postgres) {
  try {
    rows.push(await run('PostgreSQL', postgres.url));
  } finally {
    await postgres.drop();
  }
}
console.log(
  `\n${JOBS} jobs created over the API, ${CONCURRENCY} requests in flight; one endpoint; ${machine()}`,
);
printTable(
  ['database', 'events', 'delivered', 'p50 ms', 'p99 ms', 'max ms', 'delivered/s', 'duplicates'],
  rows,
);
