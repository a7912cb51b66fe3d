// What the service adds around the model, for one job from POST to pull request.
//
//   npm run bench:job            (BENCH_WARM=10 warm jobs per repository, BENCH_TOOL_RUNS=20)
//
// Generates two repositories with `git fast-import` (2,000 and 20,000 small markdown files in
// nested folders, 300 commits, about 20 MB and 200 MB of packed history), cached under
// `<tmpdir>/agentjobs-bench-repos`. Times `git clone` of each as the baseline. Starts a scripted
// model (test/support/scripted-model.ts) behind a timing proxy, then the built `agentjobs serve`,
// and runs one project per repository: the first job (cold: the mirror does not exist yet) and
// BENCH_WARM more, one after another. Each job is two model turns: a `write_file` call, then a
// final answer. Then a fresh server runs 4 jobs at once for the peak RSS. Last, with the server
// stopped, times the mirror fetch, the workspace and the agent's read tools on the mirrors the
// jobs made. Prints one table.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timeGitSide } from './job-git.mjs';
import { measure, runJob } from './job-phases.mjs';
import { statusKiB, treeRssKiB } from './proc.mjs';
import { cli, firstLine, stop } from './processes.mjs';
import { percentile, progressLog } from './report.mjs';
import { cachedRepo, NEEDLE, timeClone, upstreamCopy } from './repos.mjs';
import { printTable } from './table.mjs';
import { startTimingProxy } from './timing-proxy.mjs';

const WARM = Number(process.env.BENCH_WARM ?? 10);
const TOOL_RUNS = Number(process.env.BENCH_TOOL_RUNS ?? 20);
const CONCURRENT = 4;
const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const CLI = path.join(ROOT, 'dist/cli/main.js');
const SCRIPTED_MODEL = path.join(ROOT, 'test/support/scripted-model.ts');
const REPOS = [
  { label: '2,000 files', files: 2_000, commits: 300, historyMiB: 20 },
  { label: '20,000 files', files: 20_000, commits: 300, historyMiB: 200 },
];

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-job-'));
const children = new Set();
function cleanUp() {
  for (const child of children) child.kill();
  fs.rmSync(temp, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    cleanUp();
    process.exit(130);
  });
const log = progressLog();

// ---- processes -------------------------------------------------------------------------------------

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** The job's two turns: write a page, then the final answer. */
function jobTurns(name) {
  return [
    {
      toolCalls: [
        {
          name: 'write_file',
          input: { path: `docs/bench/${name}.md`, content: `# ${name}\n\nWritten by the scripted model.\n` },
        },
      ],
    },
    { text: `Added docs/bench/${name}.md.` },
  ];
}

async function startScriptedModel(turns) {
  const script = path.join(temp, 'turns.json');
  fs.writeFileSync(script, JSON.stringify(turns));
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', SCRIPTED_MODEL, '--script', script, '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const [, url] = await firstLine(child, /"url":"([^"]+)"/);
  return url;
}

async function startServer(env) {
  const child = track(
    spawn(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const [line] = await firstLine(child, /\{[^\n]*"agentjobs is listening"[^\n]*\}/);
  const started = JSON.parse(line);
  if (started.worker !== true) throw new Error(`agentjobs serve started without a worker: ${line}`);
  return {
    address: started.address,
    pid: child.pid,
    stop: () => stop(child),
  };
}

// ---- the run -------------------------------------------------------------------------------------

const repos = [];
for (const spec of REPOS) repos.push(await cachedRepo(spec, log));

// The 1-minute load average at start, after the jobs and at the end: other work on the machine shows here.
const loads = [os.loadavg()[0]];
for (const repo of repos) {
  log(`${repo.label}: timing git clone (3 runs each)`);
  repo.cloneNoLocal = timeClone(repo, ['--no-local'], temp);
  repo.cloneTransfer = timeClone(repo, ['--no-local', '--no-checkout'], temp);
  repo.cloneLocal = timeClone(repo, [], temp);
}

const jobs = repos.length * (1 + WARM);
const turns = [];
for (let n = 0; n < jobs; n++) turns.push(...jobTurns(`job-${n}`));
// Concurrent jobs take turns in the order their requests arrive: every first call writes a page.
const concurrentTurns = Array.from({ length: CONCURRENT }, (_, n) => jobTurns(`concurrent-${n}`));
turns.push(...concurrentTurns.map((pair) => pair[0]), ...concurrentTurns.map((pair) => pair[1]));
const proxy = await startTimingProxy(await startScriptedModel(turns));

const dataDir = path.join(temp, 'data');
const env = {
  AGENTJOBS_DATA_DIR: dataDir,
  DATABASE_URL: `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
  AGENTJOBS_MODEL: 'openai-compatible:scripted',
  OPENAI_COMPATIBLE_BASE_URL: proxy.url,
  AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000',
  AGENTJOBS_WORKER_CONCURRENCY: String(CONCURRENT),
  AGENTJOBS_PROJECT_CONCURRENCY: String(CONCURRENT),
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
};
fs.mkdirSync(dataDir, { recursive: true });
for (const repo of repos) {
  repo.upstream = upstreamCopy(repo, temp);
  const project = cli(['project', 'create', '--name', `Bench ${repo.label}`, '--repo', repo.upstream], env);
  repo.project = { id: project.id, key: cli(['key', 'create', '--project', project.id], env).key };
}

let server = await startServer(env);
for (const repo of repos) {
  repo.jobs = [];
  for (let n = 0; n <= WARM; n++) {
    log(`${repo.label}: job ${n + 1} of ${WARM + 1}${n === 0 ? ' (cold)' : ''}`);
    const result = await runJob(server, repo.project, `Bench job ${n} on ${repo.label}`);
    repo.jobs.push(measure(result, proxy.calls));
  }
}
loads.push(os.loadavg()[0]);
await server.stop();

// A fresh process, mirrors warm: its peak RSS is that of starting up and running 4 jobs at once.
log(`${CONCURRENT} jobs at once on ${repos.at(-1).label}`);
server = await startServer(env);
const big = repos.at(-1);
let treePeak = 0;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    treePeak = Math.max(treePeak, treeRssKiB(server.pid));
    await sleep(25);
  }
})();
proxy.holdFollowUps(CONCURRENT);
const concurrentStart = now();
const concurrent = await Promise.all(
  Array.from({ length: CONCURRENT }, (_, n) => runJob(server, big.project, `Concurrent job ${n}`)),
);
const concurrentWall = now() - concurrentStart;
sampling = false;
await sampler;
const vmHwm = statusKiB(server.pid, 'VmHWM');
const rssAfter = statusKiB(server.pid, 'VmRSS');
await server.stop();
proxy.close();
const concurrentPrs = concurrent.filter((result) => result.job.prLink).length;

for (const repo of repos) {
  log(`${repo.label}: mirror fetch, workspace and tools (${TOOL_RUNS} runs each)`);
  const mirrorPath = path.join(dataDir, 'mirrors', `${repo.project.id}.git`);
  repo.git = await timeGitSide(repo, mirrorPath, { runs: TOOL_RUNS, temp });
}

// ---- the table -------------------------------------------------------------------------------------

const ms = (value) =>
  value >= 1000 ? `${(value / 1000).toFixed(2)} s` : value < 10 ? value.toFixed(1) : `${Math.round(value)}`;
const coldWarm = (repo, key) => {
  const warm = repo.jobs.slice(1).map((job) => job[key]);
  return `${ms(repo.jobs[0][key])} / ${ms(percentile(warm, 50))} / ${ms(percentile(warm, 99))}`;
};
const p50p95 = (values) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 95))}`;
const warmP99 = (repo, key) =>
  percentile(
    repo.jobs.slice(1).map((job) => job[key]),
    99,
  );
const allPickups = repos.flatMap((repo) => repo.jobs.map((job) => job.pickup));
const pickupP99 = percentile(allPickups, 99);
const overheadRatio = big.cloneNoLocal / warmP99(big, 'overhead');
const met = (ok) => (ok ? 'met' : '**not met**');
const CW = `cold / warm p50 / warm p99 (n=${WARM})`;

const rows = [
  [
    'pickup: POST sent → claimed',
    CW,
    ...repos.map((repo) => coldWarm(repo, 'pickup')),
    'p99 < 50 ms',
    `${met(pickupP99 < 50)} (p99 of all ${allPickups.length}: ${pickupP99.toFixed(1)})`,
  ],
  ['· of which job created → claimed', CW, ...repos.map((repo) => coldWarm(repo, 'pickupServer')), '', ''],
  [
    'claimed → workspace ready',
    CW,
    ...repos.map((repo) => coldWarm(repo, 'workspace')),
    'warm < 100 ms, both sizes',
    met(repos.every((repo) => warmP99(repo, 'workspace') < 100)),
  ],
  [
    '· mirror fetch (ensureMirror, warm)',
    `p50 / p95 of ${TOOL_RUNS}`,
    ...repos.map((repo) => p50p95(repo.git.fetch)),
    '',
    '',
  ],
  [
    '· worktree + index (Workspace.create)',
    `p50 / p95 of ${TOOL_RUNS}`,
    ...repos.map((repo) => p50p95(repo.git.create)),
    '',
    '',
  ],
  ['agent loop outside the model', CW, ...repos.map((repo) => coldWarm(repo, 'loop')), '', ''],
  ['final model answer → PR created', CW, ...repos.map((repo) => coldWarm(repo, 'publish')), '', ''],
  ['· answer → commit made', CW, ...repos.map((repo) => coldWarm(repo, 'commit')), '', ''],
  ['· commit → PR created (push, PR record)', CW, ...repos.map((repo) => coldWarm(repo, 'push')), '', ''],
  ['PR created → job completed', CW, ...repos.map((repo) => coldWarm(repo, 'finish')), '', ''],
  [
    'service overhead (total − model)',
    CW,
    ...repos.map((repo) => coldWarm(repo, 'overhead')),
    'warm < 500 ms',
    met(repos.every((repo) => warmP99(repo, 'overhead') < 500)),
  ],
  ['model time (2 scripted calls)', CW, ...repos.map((repo) => coldWarm(repo, 'model')), '', ''],
  ['POST → completed', CW, ...repos.map((repo) => coldWarm(repo, 'total')), '', ''],
  ['`git clone --no-local` (baseline)', 'median of 3', ...repos.map((repo) => ms(repo.cloneNoLocal)), '', ''],
  ['· the same with `--no-checkout`', 'median of 3', ...repos.map((repo) => ms(repo.cloneTransfer)), '', ''],
  [
    '`git clone` (local: hard links, checkout)',
    'median of 3',
    ...repos.map((repo) => ms(repo.cloneLocal)),
    '',
    '',
  ],
  [
    'baseline ÷ warm overhead p99',
    '× (no-checkout ×)',
    ...repos.map((repo) => {
      const overhead = warmP99(repo, 'overhead');
      return `${(repo.cloneNoLocal / overhead).toFixed(1)}× (${(repo.cloneTransfer / overhead).toFixed(1)}×)`;
    }),
    '≥ 10× (20,000 files)',
    met(overheadRatio >= 10),
  ],
  [
    '`list_files` (whole repository)',
    `p50 / p95 of ${TOOL_RUNS}`,
    ...repos.map((repo) => p50p95(repo.git.list)),
    '',
    '',
  ],
  [
    '`read_file` (one page)',
    `p50 / p95 of ${TOOL_RUNS}`,
    ...repos.map((repo) => p50p95(repo.git.read)),
    '',
    '',
  ],
  [
    `\`search_files\` ("${NEEDLE}", whole tree)`,
    `p50 / p95 of ${TOOL_RUNS}`,
    ...repos.map((repo) => p50p95(repo.git.search)),
    '',
    '',
  ],
  [
    `peak RSS, worker running ${CONCURRENT} jobs (VmHWM)`,
    'MiB',
    '',
    `${(vmHwm / 1024).toFixed(0)}`,
    '< 400 MB',
    met(vmHwm * 1024 < 400e6),
  ],
  ['· with its git child processes (sampled)', 'MiB', '', `${(treePeak / 1024).toFixed(0)}`, '', ''],
];

const header = [
  'measure (ms unless stated)',
  'figures',
  ...repos.map((repo) => repo.label),
  'target',
  'met?',
];
const cpu = os.cpus();
const git = execFileSync('git', ['--version']).toString().trim().replace('git version ', '');
console.log(
  `\n${cpu.length} × ${cpu[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, git ${git}, SQLite`,
);
console.log(
  `load average (1 min): ${loads[0].toFixed(2)} at start, ${loads[1].toFixed(2)} after the jobs, ${os.loadavg()[0].toFixed(2)} at the end`,
);
console.log(
  repos
    .map(
      (repo) =>
        `${repo.label}: ${repo.commits} commits, ${repo.objects.toLocaleString('en')} objects, ${repo.packMiB.toFixed(0)} MiB packed`,
    )
    .join('; '),
);
console.log(
  `${CONCURRENT} jobs at once: ${ms(concurrentWall)} wall, ${concurrentPrs} of ${CONCURRENT} opened a PR; RSS after: ${(rssAfter / 1024).toFixed(0)} MiB`,
);
printTable(header, rows);
// The scripted model and the proxy's keep-alive sockets would hold the process open.
process.exit(0);
