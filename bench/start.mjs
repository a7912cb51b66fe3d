// How long `npm start` takes to listen on a built checkout, and what the build adds to it.
//
//   npm run bench:start          (BENCH_RUNS=5 runs per row; BENCH_FULL=1 adds a build from nothing)
//
// Each row starts a command in a fresh data directory (PORT=0, JSON logs), times it from the spawn
// to the "agentjobs is listening" line, and stops it with SIGTERM; the CPU column is the CPU time
// all its processes used until then, which a busy machine changes much less than the wall time. "npm start" includes npm itself
// and the build's up-to-date check (`tsc -b`); "node dist/cli/main.js serve" is the server alone.
// BENCH_FULL=1 copies the checkout's sources to a temporary folder and times a first build there
// (what `npm ci` runs once through `prepare`). Prints one table.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-start-'));

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/**
 * CPU seconds the process group `pgid` has used so far, its finished children's included: on a
 * busy machine the wall time mostly measures the others' work, the CPU time does not.
 */
function groupCpuSeconds(pgid) {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // After the command name in parentheses: state, ppid, pgrp, … utime (14), stime, cutime, cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks / TICKS_PER_SECOND;
}

async function timeToListen(command, args) {
  const dataDir = fs.mkdtempSync(path.join(scratch, 'data-'));
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      AGENTJOBS_DATA_DIR: dataDir,
      PORT: '0',
      AGENTJOBS_LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
  });
  try {
    await firstLine(child, /agentjobs is listening/);
    const wall = performance.now() - started;
    return { wall, cpu: groupCpuSeconds(child.pid) * 1000 };
  } finally {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}

function timeBuild(cwd) {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const childrenBefore = childrenCpu();
  execFileSync('npm', ['run', 'build', '--silent'], { cwd, stdio: 'ignore' });
  return { wall: performance.now() - started, cpu: childrenCpu() - childrenBefore + cpuMs(cpuBefore) };
}

/** CPU milliseconds of this process's waited-for children (from /proc/self/stat: cutime, cstime). */
function childrenCpu() {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND) * 1000;
}
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function row(label, measure) {
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await measure());
  const walls = runs.map((one) => one.wall);
  return [
    label,
    seconds(median(walls)),
    seconds(Math.min(...walls)),
    seconds(Math.max(...walls)),
    seconds(median(runs.map((one) => one.cpu))),
  ];
}

try {
  timeBuild(ROOT); // the checkout is built before anything is timed
  const rows = [
    await row('npm start (built checkout)', () => timeToListen('npm', ['start', '--silent'])),
    await row('node dist/cli/main.js serve', () =>
      timeToListen(process.execPath, ['dist/cli/main.js', 'serve']),
    ),
    await row('npm run build (nothing changed)', async () => timeBuild(ROOT)),
  ];
  if (process.env.BENCH_FULL === '1') {
    const copy = path.join(scratch, 'checkout');
    fs.mkdirSync(copy);
    for (const entry of [
      'src',
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'tsconfig.client.json',
    ])
      fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    const full = timeBuild(copy);
    const wall = seconds(full.wall);
    rows.push(['npm run build (from nothing, as at install)', wall, wall, wall, seconds(full.cpu)]);
  }
  console.log(`${machine()}, ${RUNS} runs per row, load average ${os.loadavg()[0].toFixed(2)}\n`);
  printTable(['command', 'median', 'fastest', 'slowest', 'CPU (median)'], rows);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
