// What a project's environment costs a job (docs/checks.md#the-environment-and-the-agents-commands).
//
//   npm run build --silent && node bench/setup-cache.mjs      (BENCH_RUNS=5 runs per case)
//
// A repository with a package-lock.json and a setup command that leaves a node_modules of 5,000
// files (100 packages of 50 files, made in the sandbox: no registry is reached). Times, as medians:
// the setup of a first job (the command runs and its output is cached), the setup of a second job
// on the same base (the cache is found and reused), then one offline command (`run_command`, the
// check command) with that node_modules laid in read-only (bind mounts) against the same command
// with node_modules copied into its checkout, which is what laying it in by copy would cost per run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAgentCommand } from '../dist/checks/agent-command.js';
import { prepareEnvironment } from '../dist/checks/environment.js';
import { sandboxStatus } from '../dist/checks/sandbox.js';
import { createRedactor } from '../dist/domain/redact.js';
import { machine, printTable } from './table.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FILES = 5000;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-setup-'));
process.on('exit', () => fs.rmSync(temp, { recursive: true, force: true }));

const status = await sandboxStatus({ unlimited: false });
if (!status.available) {
  console.log(`The sandbox is not available here: ${status.reason}`);
  process.exit(1);
}

const repo = path.join(temp, 'repo');
fs.mkdirSync(repo);
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
fs.writeFileSync(path.join(repo, 'package-lock.json'), '{"lockfileVersion":3}\n');
fs.writeFileSync(path.join(repo, 'index.md'), '# Home\n');
execFileSync('git', ['-C', repo, 'add', '-A']);
execFileSync('git', ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-qm', 'init']);
const commit = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

const MiB = 1024 * 1024;
const sandbox = { processes: 256, memoryBytes: 2048 * MiB, diskBytes: 1024 * MiB, unlimited: false };
// 100 packages of 50 files each, written by one awk process (a shell loop would time the shell).
const SETUP = `awk 'BEGIN { for (p = 0; p < ${FILES / 50}; p++) { d = "node_modules/pkg-" p; system("mkdir -p " d); for (f = 0; f < 50; f++) { file = d "/file-" f ".js"; print "module.exports = " p * 50 + f ";" > file; close(file) } } }'`;
const redact = createRedactor([]);
let projects = 0;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
async function time(run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const firstJob = [];
const secondJob = [];
let environment = '';
for (let i = 0; i < RUNS; i++) {
  // A new project each time: its first job finds no cache.
  const options = {
    projectId: `bench-${projects++}`,
    command: SETUP,
    environmentsDir: path.join(temp, 'environments'),
    gitDir: repo,
    baseCommit: commit,
    timeoutSeconds: 300,
    sandbox,
    maxBytes: 1024 * MiB,
    redact,
  };
  let outcome;
  firstJob.push(await time(async () => (outcome = await prepareEnvironment(options))));
  if (outcome.status !== 'built') throw new Error(`setup ${outcome.status}: ${outcome.message ?? ''}`);
  secondJob.push(await time(async () => (outcome = await prepareEnvironment(options))));
  if (outcome.status !== 'reused') throw new Error(`expected reuse, got ${outcome.status}`);
  environment = outcome.dir;
}
const count = execFileSync('sh', ['-c', `find ${environment}/node_modules -type f | wc -l`], {
  encoding: 'utf8',
}).trim();

const COMMAND = 'test -f node_modules/pkg-99/file-49.js && ls node_modules | wc -l';
const copyIn = (target) => execFileSync('cp', ['-a', `${repo}/index.md`, target]);
const laid = [];
const copied = [];
const bare = [];
for (let i = 0; i < RUNS; i++) {
  const run = (extra) =>
    runAgentCommand({
      command: COMMAND,
      timeoutSeconds: 60,
      sandbox,
      environment: null,
      materialize: async (target) => copyIn(target),
      scratchDir: path.join(temp, 'scratch'),
      redact,
      ...extra,
    });
  laid.push(await time(() => run({ environment })));
  copied.push(
    await time(() =>
      run({
        materialize: async (target) => {
          copyIn(target);
          execFileSync('cp', ['-a', `${environment}/node_modules`, target]);
        },
      }),
    ),
  );
  bare.push(await time(() => run({ command: 'true' })));
}

console.log(`${machine()}; ${RUNS} runs per case, medians; node_modules of ${count} files\n`);
const ms = (values) => `${median(values).toFixed(0)} ms`;
printTable(
  ['case', 'time'],
  [
    ['setup, first job: the command runs, its node_modules is cached', ms(firstJob)],
    ['setup, second job on the same base: the cache is reused', ms(secondJob)],
    ['one offline command, node_modules laid in read-only (bind)', ms(laid)],
    ['the same command, node_modules copied into its checkout', ms(copied)],
    ['one offline command (`true`) with no environment', ms(bare)],
  ],
);
