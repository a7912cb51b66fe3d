// Many jobs at once (issue 13): what the service costs when it runs a burst of jobs that mostly wait
// on a model.
//
//   npm run bench:concurrency                         SQLite batches 1, 10, 50; PostgreSQL 1, 2, 4 workers
//   npm run bench:concurrency -- --batches 1,10,50,200 --workers 1,2,4 --latency 2000 --files 500
//   npm run bench:concurrency -- --databases sqlite   (or postgres; --workers '' skips PostgreSQL)
//
// Setup: 4 local projects, each a bare repository of `--files` Markdown pages (default 500) in one
// commit; a scripted OpenAI-compatible model (bench/latency-model.ts) that answers every request
// after `--latency` ms (default 2,000); each job takes 3 model steps (list_files, write_file, a
// final answer), so a job holds `3 × latency` of model time, and the batch, at best, the same.
//
// SQLite: per batch, a fresh `agentjobs serve` with AGENTJOBS_WORKER_CONCURRENCY and
// AGENTJOBS_PROJECT_CONCURRENCY at the batch size. PostgreSQL (127.0.0.1:5432, user postgres; a
// database of its own, dropped at the end): `agentjobs api` and 1, 2, 4 `agentjobs worker`
// processes sharing one data folder, each worker holding `--per-worker` jobs (default 10), with a
// batch of `--pg-batch` jobs (default 40): jobs per second against the number of workers. Before
// each measured batch, one job per project warms the mirrors and the processes up.
//
// Per batch: wall time (first POST sent → last job completed) against the model's own time; the
// p50/p99 of the phases from each job's events and the model's log: queued (created → claimed),
// preparing (claimed → running), service time before each model request (running → first request,
// then each answer → the next request), publishing (final answer → completed); CPU seconds per job of
// the service processes and of their git children (/proc/<pid>/stat: utime+stime of the service,
// cutime+cstime for reaped children plus the live descendants); the peak RSS of the service processes
// and all their descendants, and the most git processes alive at once (sampled every 100 ms).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { collect, measure, modelCalls, runBatch } from './batches.mjs';
import { scratchDatabase } from './postgres.mjs';
import { cpuTicks, sampler, TICK_SECONDS } from './proc.mjs';
import { cli, firstLine, stop } from './processes.mjs';
import { percentile, progressLog } from './report.mjs';
import { makeRepository } from './repos.mjs';
import { machine, printTable } from './table.mjs';

const { values: options } = parseArgs({
  options: {
    batches: { type: 'string', default: '1,10,50' },
    workers: { type: 'string', default: '1,2,4' },
    'per-worker': { type: 'string', default: '10' },
    'pg-batch': { type: 'string', default: '40' },
    latency: { type: 'string', default: '2000' },
    files: { type: 'string', default: '500' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const list = (text) => text.split(',').filter(Boolean).map(Number);
const BATCHES = list(options.batches);
const WORKERS = list(options.workers);
const PER_WORKER = Number(options['per-worker']);
const PG_BATCH = Number(options['pg-batch']);
const LATENCY_MS = Number(options.latency);
const FILES = Number(options.files);
const DATABASES = options.databases.split(',');
const PROJECTS = 4;
const STEPS = 3;
const MODEL_MS = STEPS * LATENCY_MS;

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const CLI = path.join(ROOT, 'dist/cli/main.js');
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-concurrency-'));
const modelLog = path.join(temp, 'model-calls.jsonl');
const log = progressLog();

// ---- processes ---------------------------------------------------------------------------------------

const children = new Set();
let dropDatabase = null;
function cleanUp() {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  fs.rmSync(temp, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, async () => {
    await dropDatabase?.().catch(() => {});
    process.exit(130);
  });

/** Starts a process in a group of its own (so that its git children die with it at the end). */
function start(command, args, env = {}) {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function startModel() {
  const child = start(process.execPath, [
    '--import',
    'tsx',
    path.join(ROOT, 'bench/latency-model.ts'),
    '--latency',
    String(LATENCY_MS),
    '--log',
    modelLog,
  ]);
  const [, url] = await firstLine(child, /"url":"([^"]+)"/);
  return url;
}

/**
 * With BENCH_TRACE_EXEC=<file>, each service process runs under `strace -f -e trace=execve`, which
 * writes every program it starts to `<file>.<role>-<n>` (to count git processes per job; the CPU
 * figures of such a run include strace and mean nothing).
 */
let traced = 0;
async function startRole(role, env) {
  const trace = process.env.BENCH_TRACE_EXEC;
  const command = trace ? 'strace' : process.execPath;
  const prefix = trace
    ? ['-f', '-qq', '-e', 'trace=execve', '-o', `${trace}.${role}-${traced++}`, process.execPath]
    : [];
  // BENCH_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=<dir>`) go to each service process's node.
  const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = start(command, [...prefix, ...nodeFlags, CLI, role], env);
  const ready =
    role === 'worker' ? /agentjobs worker is running/ : /\{[^\n]*"agentjobs is listening"[^\n]*\}/;
  const [line] = await firstLine(child, ready);
  return { child, pid: child.pid, address: role === 'worker' ? null : JSON.parse(line).address };
}

// ---- jobs ----------------------------------------------------------------------------------------------

/** Runs one measured batch against running service processes. */
async function measuredBatch(address, projects, servicePids, count, label) {
  fs.rmSync(modelLog, { force: true });
  const before = cpuTicks(servicePids);
  const stopSampling = sampler(servicePids);
  const batch = await runBatch(address, projects, count, label);
  const peaks = await stopSampling();
  const after = cpuTicks(servicePids);
  const jobs = await collect(address, batch);
  const cpu = {
    service: ((after.service - before.service) * TICK_SECONDS) / count,
    children: ((after.children - before.children) * TICK_SECONDS) / count,
  };
  const result = measure(jobs, cpu, peaks, modelCalls(modelLog), STEPS);
  for (const failure of result.failures.slice(0, 5)) log(`  ${failure}`);
  return result;
}

async function makeProjects(env, dataDir) {
  const projects = [];
  for (let n = 0; n < PROJECTS; n++) {
    const repository = path.join(dataDir, '..', `upstream-${n}.git`);
    makeRepository(repository, FILES);
    const project = cli(['project', 'create', '--name', `Bench ${n}`, '--repo', repository], env);
    projects.push({ id: project.id, key: cli(['key', 'create', '--project', project.id], env).key });
  }
  return projects;
}

function baseEnv(modelUrl, dataDir) {
  return {
    AGENTJOBS_DATA_DIR: dataDir,
    AGENTJOBS_MODEL: 'openai-compatible:scripted',
    OPENAI_COMPATIBLE_BASE_URL: modelUrl,
    AGENTJOBS_RATE_LIMIT_PER_HOUR: '10000000',
    AGENTJOBS_MAX_ACTIVE_JOBS: '100000',
    AGENTJOBS_ADMIN_PASSWORD: 'bench-password',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
}

// ---- the runs -------------------------------------------------------------------------------------------

const rows = [];
const modelUrl = await startModel();
const loads = [os.loadavg()[0]];

if (DATABASES.includes('sqlite') && BATCHES.length > 0) {
  const dataDir = path.join(temp, 'sqlite', 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const env = { ...baseEnv(modelUrl, dataDir), DATABASE_URL: `sqlite:${path.join(dataDir, 'agentjobs.db')}` };
  const projects = await makeProjects(env, dataDir);
  for (const count of BATCHES) {
    const concurrency = String(Math.max(count, PROJECTS));
    const server = await startRole('serve', {
      ...env,
      AGENTJOBS_WORKER_CONCURRENCY: concurrency,
      AGENTJOBS_PROJECT_CONCURRENCY: concurrency,
    });
    log(`SQLite, ${count} at once: warming up`);
    await runBatch(server.address, projects, PROJECTS, `sqlite-${count}-warm`);
    log(`SQLite, ${count} at once`);
    try {
      const result = await measuredBatch(server.address, projects, [server.pid], count, `sqlite-${count}`);
      rows.push({ label: `SQLite, serve, ${count} at once`, ...result });
    } catch (error) {
      log(`SQLite, ${count} at once failed: ${error.message}`);
    }
    await stop(server.child);
  }
}

if (DATABASES.includes('postgres') && WORKERS.length > 0) {
  const database = await scratchDatabase(options.postgres);
  if (!database) throw new Error(`PostgreSQL does not answer at ${options.postgres}`);
  dropDatabase = async () => {
    dropDatabase = null;
    await database.drop();
  };
  try {
    const url = new URL(database.url);
    const dataDir = path.join(temp, 'postgres', 'data');
    fs.mkdirSync(dataDir, { recursive: true });
    const env = {
      ...baseEnv(modelUrl, dataDir),
      DATABASE_URL: url.toString(),
      AGENTJOBS_WORKER_CONCURRENCY: String(PER_WORKER),
      AGENTJOBS_PROJECT_CONCURRENCY: String(PG_BATCH),
    };
    const projects = await makeProjects(env, dataDir);
    for (const workers of WORKERS) {
      // A failed configuration is reported and skipped, so the table of the others still prints.
      await pgRun(workers).catch((error) => log(`PostgreSQL, ${workers} worker(s) failed: ${error.message}`));
    }
    async function pgRun(workers) {
      const apiServer = await startRole('api', env);
      const started = [];
      for (let n = 0; n < workers; n++) started.push(await startRole('worker', env));
      const pids = [apiServer.pid, ...started.map((worker) => worker.pid)];
      log(`PostgreSQL, ${workers} worker(s): warming up`);
      await runBatch(apiServer.address, projects, PROJECTS, `pg-${workers}-warm`);
      log(`PostgreSQL, ${workers} worker(s) × ${PER_WORKER} jobs, ${PG_BATCH} at once`);
      const result = await measuredBatch(apiServer.address, projects, pids, PG_BATCH, `pg-${workers}`);
      rows.push({
        label: `PostgreSQL, api + ${workers} worker × ${PER_WORKER}, ${PG_BATCH} at once`,
        ...result,
      });
      await Promise.all([apiServer, ...started].map((role) => stop(role.child)));
    }
  } finally {
    await dropDatabase?.();
  }
}
loads.push(os.loadavg()[0]);

// ---- the table -----------------------------------------------------------------------------------------

const s = (ms) => (ms / 1000).toFixed(ms >= 10_000 ? 1 : 2);
const ms = (value) => (Number.isNaN(value) ? '–' : value >= 1000 ? `${s(value)} s` : `${Math.round(value)}`);
const pair = (values) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
const firstPg = rows.find((row) => row.label.startsWith('PostgreSQL'));
const git = execFileSync('git', ['--version']).toString().trim().replace('git version ', '');
console.log(
  `\n${machine()}, git ${git}; ${PROJECTS} projects of ${FILES} files; model latency ${LATENCY_MS} ms × ${STEPS} steps = ${s(MODEL_MS)} s of model time per job`,
);
console.log(`load average (1 min): ${loads[0].toFixed(2)} at start, ${loads[1].toFixed(2)} at the end\n`);
printTable(
  [
    'run',
    'done / PRs',
    'wall (× model)',
    'jobs/s',
    'queued p50/p99',
    'preparing p50/p99',
    'before each model call p50/p99',
    'publishing p50/p99',
    'CPU/job service',
    'CPU/job git',
    'peak RSS MiB',
    'git procs at peak',
  ],
  rows.map((row) => {
    const jobsPerSecond = row.jobs / (row.wall / 1000);
    const speedup =
      row.label.startsWith('PostgreSQL') && row !== firstPg
        ? ` (${(jobsPerSecond / (firstPg.jobs / (firstPg.wall / 1000))).toFixed(2)}×)`
        : '';
    return [
      row.label,
      `${row.completed}/${row.jobs} / ${row.prs}`,
      `${s(row.wall)} s (${(row.wall / MODEL_MS).toFixed(2)}×)`,
      `${jobsPerSecond.toFixed(2)}${speedup}`,
      pair(row.phases.queued),
      pair(row.phases.preparing),
      pair(row.phases.step),
      pair(row.phases.publishing),
      `${Math.round(row.cpu.service * 1000)} ms`,
      `${Math.round(row.cpu.children * 1000)} ms`,
      (row.peaks.peakRss / 2 ** 20).toFixed(0),
      String(row.peaks.peakGit),
    ];
  }),
);
console.log(
  '\nms unless stated; "before each model call": running → 1st request, then each answer → next request.',
);
process.exit(0);
