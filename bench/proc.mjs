// Linux /proc readers for the benchmark scripts: a process's stat and status, its descendants, CPU and RSS.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Seconds in one clock tick, the unit of the CPU times in /proc/<pid>/stat. */
export const TICK_SECONDS = 1 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const PAGE_BYTES = Number(execFileSync('getconf', ['PAGESIZE']).toString().trim());
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fields of /proc/<pid>/stat the scripts use; null when the process is gone. */
export function readStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, so fields[11]; rss is field 24.
    return {
      pid: Number(pid),
      comm: stat.slice(open + 1, close),
      ppid: Number(fields[1]),
      utime: Number(fields[11]),
      stime: Number(fields[12]),
      cutime: Number(fields[13]),
      cstime: Number(fields[14]),
      rssBytes: Number(fields[21]) * PAGE_BYTES,
    };
  } catch {
    return null;
  }
}

/** A `<field>: <n> kB` line of /proc/<pid>/status (VmRSS, VmHWM), in KiB; 0 when it is missing. */
export function statusKiB(pid, field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
    fs.readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return match ? Number(match[1]) : 0;
}

/** Every live process below `roots` (not the roots), with its stat. */
export function descendants(roots) {
  const all = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat) all.set(Number(entry), stat);
  }
  const below = [];
  for (const [pid, stat] of all) {
    if (roots.includes(pid)) continue;
    let up = stat.ppid;
    while (up > 1 && !roots.includes(up)) up = all.get(up)?.ppid ?? 0;
    if (up > 1) below.push(stat);
  }
  return { roots: roots.map((pid) => all.get(pid)).filter(Boolean), below };
}

/** RSS of `pid` and every process below it (the git processes of the worker), in KiB. */
export function treeRssKiB(pid) {
  const { roots, below } = descendants([pid]);
  let total = 0;
  for (const stat of [...roots, ...below]) {
    try {
      total += statusKiB(stat.pid, 'VmRSS');
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU ticks so far: of the service processes themselves, and of everything they started. */
export function cpuTicks(pids) {
  const { roots, below } = descendants(pids);
  const service = roots.reduce((sum, s) => sum + s.utime + s.stime, 0);
  const reaped = roots.reduce((sum, s) => sum + s.cutime + s.cstime, 0);
  const live = below.reduce((sum, s) => sum + s.utime + s.stime + s.cutime + s.cstime, 0);
  return { service, children: reaped + live };
}

/** Samples RSS (service + descendants) and the git processes alive, every 100 ms, until stopped. */
export function sampler(pids) {
  let peakRss = 0;
  let peakGit = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { roots, below } = descendants(pids);
      const rss = [...roots, ...below].reduce((sum, s) => sum + s.rssBytes, 0);
      peakRss = Math.max(peakRss, rss);
      peakGit = Math.max(peakGit, below.filter((s) => s.comm.startsWith('git')).length);
      await sleep(100);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { peakRss, peakGit };
  };
}
