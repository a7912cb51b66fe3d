// The current tree against another git ref, side by side in one run (issue 35): on a busy machine
// absolute figures drift, but two trees measured alternately under the same load can be compared.
//
//   npm run build && node bench/compare.mjs                    this tree against 831461d
//   node bench/compare.mjs --against main --jobs 50,200 --rounds 2 --profile 4
//
// The ref is built once into the temp folder (bench/ref-tree.mjs). Each tree gets its own data
// folder and 4 projects of `--files` pages (as bench/concurrency.mjs), and one scripted model
// (bench/latency-model.ts, `--latency` ms × 3 steps) serves both. For each batch size and round, each
// tree in turn (the order flips every round): a fresh `agentjobs serve` with worker and project
// concurrency at the batch size, one warm-up job per project, then the batch. Figures per batch:
// wall time against the model's time, CPU per job of the service process and of everything it
// started (/proc), preparing and publishing p50 (from the job's events and the model's log), and the
// SQL statements per job (counted in the service by bench/count-statements.cjs).
//
// With `--profile N` (default 4; 0 skips it), each tree also runs N jobs one after another on a
// serve whose `git` is a wrapper that logs each start, with statement times kept, and its CPU sampled
// every 10 ms: git processes, statements and CPU per job, split by phase (bench/job-profile.mjs).
// The CPU of that run includes the wrapper and the sampling, so only its counts are compared.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { collect, measure, modelCalls, runBatch } from './batches.mjs';
import { profileJobs, profileTable, statementTable } from './job-profile.mjs';
import { cpuTicks, sampler, TICK_SECONDS } from './proc.mjs';
import { cli, firstLine, stop } from './processes.mjs';
import { refTree } from './ref-tree.mjs';
import { percentile, progressLog } from './report.mjs';
import { makeRepository } from './repos.mjs';
import { machine, printTable } from './table.mjs';

const { values: options } = parseArgs({
  options: {
    against: { type: 'string', default: '831461d' },
    jobs: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    profile: { type: 'string', default: '4' },
    latency: { type: 'string', default: '2000' },
    files: { type: 'string', default: '500' },
  },
});
const BATCHES = options.jobs.split(',').filter(Boolean).map(Number);
const ROUNDS = Number(options.rounds);
const PROFILE_JOBS = Number(options.profile);
const LATENCY_MS = Number(options.latency);
const FILES = Number(options.files);
const PROJECTS = 4;
const STEPS = 3;
const MODEL_MS = STEPS * LATENCY_MS;

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-compare-'));
const modelLog = path.join(temp, 'model-calls.jsonl');
const log = progressLog();

const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  fs.rmSync(temp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

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
// ---- the trees --------------------------------------------------------------------------------------

const against = refTree(options.against, log);
const trees = [
  { name: `before (${options.against})`, dir: against.dir },
  { name: 'now', dir: ROOT },
];

const modelChild = start(process.execPath, [
  '--import',
  'tsx',
  path.join(ROOT, 'bench/latency-model.ts'),
  '--latency',
  String(LATENCY_MS),
  '--log',
  modelLog,
]);
const [, modelUrl] = await firstLine(modelChild, /"url":"([^"]+)"/);

for (const [n, tree] of trees.entries()) {
  tree.cli = path.join(tree.dir, 'dist/cli/main.js');
  tree.dataDir = path.join(temp, `tree-${n}`, 'data');
  fs.mkdirSync(tree.dataDir, { recursive: true });
  tree.env = {
    AGENTJOBS_DATA_DIR: tree.dataDir,
    DATABASE_URL: `sqlite:${path.join(tree.dataDir, 'agentjobs.db')}`,
    AGENTJOBS_MODEL: 'openai-compatible:scripted',
    OPENAI_COMPATIBLE_BASE_URL: modelUrl,
    AGENTJOBS_RATE_LIMIT_PER_HOUR: '10000000',
    AGENTJOBS_MAX_ACTIVE_JOBS: '100000',
    AGENTJOBS_ADMIN_PASSWORD: 'bench-password',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
  tree.projects = [];
  for (let p = 0; p < PROJECTS; p++) {
    const repository = path.join(tree.dataDir, '..', `upstream-${p}.git`);
    makeRepository(repository, FILES);
    const project = cli(
      ['project', 'create', '--name', `Bench ${p}`, '--repo', repository],
      tree.env,
      tree.cli,
    );
    const { key } = cli(['key', 'create', '--project', project.id], tree.env, tree.cli);
    tree.projects.push({ id: project.id, key });
  }
}

/** `agentjobs serve` of `tree`, counting its statements into `statementsFile`. */
async function serve(tree, concurrency, statementsFile, extraEnv = {}) {
  const child = start(
    process.execPath,
    [
      '--require',
      path.join(ROOT, 'bench/count-statements.cjs'),
      ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      tree.cli,
      'serve',
    ],
    {
      ...tree.env,
      AGENTJOBS_WORKER_CONCURRENCY: String(concurrency),
      AGENTJOBS_PROJECT_CONCURRENCY: String(concurrency),
      BENCH_STATEMENTS_TREE: tree.dir,
      BENCH_STATEMENTS_FILE: statementsFile,
      ...extraEnv,
    },
  );
  const [line] = await firstLine(child, /\{[^\n]*"agentjobs is listening"[^\n]*\}/);
  return { child, pid: child.pid, address: JSON.parse(line).address };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const statements = async (file) => {
  await sleep(300); // one more write of the counter
  return JSON.parse(fs.readFileSync(file, 'utf8')).count;
};

// ---- the batches ------------------------------------------------------------------------------------

const rows = [];
const loads = [os.loadavg()[0]];
for (const count of BATCHES) {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? trees : [...trees].reverse();
    for (const tree of order) {
      const label = `${count} at once, ${tree.name}, round ${round + 1}`;
      const statementsFile = path.join(temp, 'statements.json');
      const server = await serve(tree, Math.max(count, PROJECTS), statementsFile);
      try {
        log(`${label}: warming up`);
        await runBatch(server.address, tree.projects, PROJECTS, `w${round}-${count}-${rows.length}`);
        log(label);
        fs.rmSync(modelLog, { force: true });
        const statementsBefore = await statements(statementsFile);
        const before = cpuTicks([server.pid]);
        const stopSampling = sampler([server.pid]);
        const batch = await runBatch(
          server.address,
          tree.projects,
          count,
          `b${round}-${count}-${rows.length}`,
        );
        const peaks = await stopSampling();
        const after = cpuTicks([server.pid]);
        const statementsAfter = await statements(statementsFile);
        const cpu = {
          service: ((after.service - before.service) * TICK_SECONDS) / count,
          children: ((after.children - before.children) * TICK_SECONDS) / count,
        };
        const jobs = await collect(server.address, batch);
        const result = measure(jobs, cpu, peaks, modelCalls(modelLog), STEPS);
        for (const failure of result.failures.slice(0, 5)) log(`  ${failure}`);
        rows.push({
          label,
          count,
          tree: tree.name,
          statements: (statementsAfter - statementsBefore) / count,
          ...result,
        });
      } finally {
        await stop(server.child);
      }
    }
  }
}

// ---- the profile ------------------------------------------------------------------------------------

const profiles = [];
if (PROFILE_JOBS > 0) {
  for (const tree of trees) {
    log(`profile of ${PROFILE_JOBS} jobs one after another, ${tree.name}`);
    profiles.push({
      tree: tree.name,
      ...(await profileJobs({ tree, temp, modelLog, serve, count: PROFILE_JOBS, steps: STEPS })),
    });
  }
}
loads.push(os.loadavg()[0]);

// ---- the tables -------------------------------------------------------------------------------------

const s = (ms) => (ms / 1000).toFixed(2);
const p50 = (values) => (values.length ? `${s(percentile(values, 50))} s` : '–');
console.log(
  `\n${machine()}; ${PROJECTS} projects of ${FILES} files; model ${LATENCY_MS} ms × ${STEPS} steps = ${s(MODEL_MS)} s per job`,
);
console.log(`load average (1 min): ${loads[0].toFixed(2)} at start, ${loads[1].toFixed(2)} at the end\n`);
printTable(
  [
    'batch',
    'done',
    'wall / model',
    'CPU/job service + children',
    'preparing p50',
    'publishing p50',
    'statements/job',
    'git procs at peak',
  ],
  rows.map((row) => [
    row.label,
    `${row.completed}/${row.jobs}`,
    `${(row.wall / MODEL_MS).toFixed(2)}×`,
    `${Math.round((row.cpu.service + row.cpu.children) * 1000)} ms (${Math.round(row.cpu.service * 1000)} + ${Math.round(row.cpu.children * 1000)})`,
    p50(row.phases.preparing),
    p50(row.phases.publishing),
    String(Math.round(row.statements)),
    String(row.peaks.peakGit),
  ]),
);
for (const count of BATCHES) {
  const of = (name) => rows.filter((row) => row.count === count && row.tree === name);
  const mean = (list, pick) => list.reduce((sum, row) => sum + pick(row), 0) / list.length;
  const [before, now] = trees.map((tree) => of(tree.name));
  if (!before.length || !now.length) continue;
  const cpu = (row) => row.cpu.service + row.cpu.children;
  console.log(
    `\n${count} at once, now ÷ before (mean of ${ROUNDS} rounds): wall ${(mean(now, (r) => r.wall) / mean(before, (r) => r.wall)).toFixed(2)}×, CPU per job ${(mean(now, cpu) / mean(before, cpu)).toFixed(2)}×, statements per job ${(mean(now, (r) => r.statements) / mean(before, (r) => r.statements)).toFixed(2)}×`,
  );
}
if (profiles.length) {
  console.log(`\nOne job at a time (${PROFILE_JOBS} jobs each), per job and phase:\n`);
  profileTable(profiles);
  if (process.env.BENCH_PROFILE_SQL === '1') statementTable(profiles);
}
// The scripted model would keep this process alive: the exit handler stops it and removes the temp folder.
process.exit(0);
