// What a project's environment costs a whole job (docs/checks.md#the-environment-and-the-agents-commands),
// through the built `agentjobs serve` with a scripted model, on SQLite.
//
//   npm run build --silent && node bench/job-environment.mjs      (BENCH_RUNS=5 jobs per case)
//
// A repository with a package-lock.json, and projects whose setup command leaves a node_modules of
// 5,000 files (as bench/setup-cache.mjs: made in the sandbox, no registry reached). Each job is a
// `write_file` and an answer, from POST to completed (its pull request pushed to the local
// repository), after a first job of each project (its mirror made) that is not counted. Cases: a
// project with no setup command; a job after a new lockfile on the base (the setup runs and is
// cached); the next job on the same base (the cache is reused); and that kind of job with one `run_command` call more (one more model turn, and the command offline in the
// sandbox with node_modules laid in). Medians; the load average is printed, the machine being shared.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxStatus } from '../dist/checks/sandbox.js';
import { runJob } from './job-phases.mjs';
import { cli, firstLine, killedOnExit, stop } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FILES = 5000;
const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const CLI = path.join(ROOT, 'dist/cli/main.js');
const SCRIPTED_MODEL = path.join(ROOT, 'test/support/scripted-model.ts');
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-job-environment-'));
process.on('exit', () => fs.rmSync(temp, { recursive: true, force: true }));

const status = await sandboxStatus({ unlimited: false });
if (!status.available) {
  console.log(`The sandbox is not available here, so no setup or command can run: ${status.reason}`);
  process.exit(1);
}

const SETUP = `awk 'BEGIN { for (p = 0; p < ${FILES / 50}; p++) { d = "node_modules/pkg-" p; system("mkdir -p " d); for (f = 0; f < 50; f++) { file = d "/file-" f ".js"; print "module.exports = " p * 50 + f ";" > file; close(file) } } }'`;
const COMMAND = 'test -f node_modules/pkg-99/file-49.js && ls node_modules | wc -l';

const repo = path.join(temp, 'repo');
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
fs.writeFileSync(path.join(repo, 'package-lock.json'), '{"lockfileVersion":3}\n');
fs.writeFileSync(path.join(repo, 'index.md'), '# Home\n');
execFileSync('git', ['-C', repo, 'add', '-A']);
execFileSync('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-qm', 'init']);

let pages = 0;
const write = () => {
  const name = `page-${pages++}`;
  return { toolCalls: [{ name: 'write_file', input: { path: `${name}.md`, content: `# ${name}\n` } }] };
};
const answer = { text: 'Added a page.' };
// Jobs run one after another, so the script's turns are taken in this order: a first job of each
// project (its mirror is made: not counted), then the jobs of each case.
const turns = [write(), answer, write(), answer];
for (let i = 0; i < RUNS; i++) turns.push(write(), answer); // no setup
for (let i = 0; i < RUNS; i++)
  turns.push(
    ...[write(), answer], // setup uncached
    ...[write(), answer], // setup cached
    ...[{ toolCalls: [{ name: 'run_command', input: { command: COMMAND } }] }, write(), answer],
  );
const scriptFile = path.join(temp, 'turns.json');
fs.writeFileSync(scriptFile, JSON.stringify(turns));

const model = killedOnExit(
  spawn(process.execPath, ['--import', 'tsx', SCRIPTED_MODEL, '--script', scriptFile, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  }),
);
const [, modelUrl] = await firstLine(model, /"url":"([^"]+)"/);
const dataDir = path.join(temp, 'data');
fs.mkdirSync(dataDir);
const env = {
  AGENTJOBS_DATA_DIR: dataDir,
  DATABASE_URL: `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
  AGENTJOBS_MODEL: 'openai-compatible:scripted',
  OPENAI_COMPATIBLE_BASE_URL: modelUrl,
  AGENTJOBS_RATE_LIMIT_PER_HOUR: '1000000',
  LOG_LEVEL: 'warn',
};
const server = killedOnExit(
  spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }),
);
const [line] = await firstLine(server, /\{[^\n]*"agentjobs is listening"[^\n]*\}/);
const address = JSON.parse(line).address;

let projects = 0;
function project(args) {
  const made = cli(['project', 'create', '--name', `Bench ${projects++}`, '--repo', repo, ...args], env);
  return { id: made.id, key: cli(['key', 'create', '--project', made.id], env).key };
}
const total = (run) => Date.parse(run.job.completedAt) - run.postAt;
const setupOf = (run) => run.events.find((event) => event.type === 'setup')?.data;

const loads = [os.loadavg()[0]];
const bare = [];
const uncached = [];
const setupBuilt = [];
const cached = [];
const withCommand = [];
const plain = project([]);
const equipped = project(['--setup-command', SETUP, '--agent-commands', 'yes']);
await runJob({ address }, plain, 'Add a page');
await runJob({ address }, equipped, 'Add a page');
for (let i = 0; i < RUNS; i++) bare.push(total(await runJob({ address }, plain, 'Add a page')));
for (let i = 0; i < RUNS; i++) {
  // A new lockfile on the base: the next job finds no environment for it and runs the setup.
  fs.writeFileSync(path.join(repo, 'package-lock.json'), `{"lockfileVersion":3,"bench":${i}}\n`);
  execFileSync('git', [
    '-C',
    repo,
    '-c',
    'user.name=b',
    '-c',
    'user.email=b@e',
    'commit',
    '-qam',
    `lock ${i}`,
  ]);
  const first = await runJob({ address }, equipped, 'Add a page');
  if (setupOf(first)?.status !== 'built') throw new Error(`setup: ${JSON.stringify(setupOf(first))}`);
  uncached.push(total(first));
  setupBuilt.push(setupOf(first).durationMs);
  const second = await runJob({ address }, equipped, 'Add a page');
  if (setupOf(second)?.status !== 'reused') throw new Error(`setup: ${JSON.stringify(setupOf(second))}`);
  cached.push(total(second));
  const run = await runJob({ address }, equipped, 'Run the command, then add a page');
  const result = run.events.find(
    (event) => event.type === 'tool_result' && event.data.tool === 'run_command',
  );
  if (result?.data.summary !== 'Exit code: 0.')
    throw new Error(`run_command: ${JSON.stringify(result?.data)}`);
  withCommand.push(total(run));
}
loads.push(os.loadavg()[0]);
await stop(server);
await stop(model);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (values) => `${median(values).toFixed(0)} ms`;
console.log(
  `${machine()}; ${RUNS} jobs per case, medians; node_modules of ${FILES} files; load average ${loads.map((load) => load.toFixed(1)).join(' → ')}\n`,
);
printTable(
  ['case', 'time'],
  [
    ['a job, no setup command', ms(bare)],
    ['a job, setup uncached (a new lockfile: the command runs, is cached)', ms(uncached)],
    ['  of which the setup command (its `setup` event)', ms(setupBuilt)],
    ['a job, setup cached (the next on the same base)', ms(cached)],
    ['a job, setup cached, with one `run_command` call', ms(withCommand)],
    [
      '  one `run_command` call (and its model turn), by difference',
      `${(median(withCommand) - median(cached)).toFixed(0)} ms`,
    ],
  ],
);
