// The per-phase profile of bench/compare.mjs: jobs run one after another on a serve whose `git` is a
// wrapper that logs every start, whose SQL statements are timed (bench/count-statements.cjs), and
// whose CPU (process and children) is sampled every 10 ms. With one job at a time, each git start,
// statement and CPU tick belongs to the phase of that job it falls in:
//   queued (POST → claimed), preparing (claimed → running), agent (running → the model's last
//   answer, model time included), publishing (→ completed), after (the second after completed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { modelCalls } from './batches.mjs';
import { api, jobEvents } from './job-api.mjs';
import { cpuTicks, TICK_SECONDS } from './proc.mjs';
import { stop } from './processes.mjs';
import { printTable } from './table.mjs';

const PHASES = ['queued', 'preparing', 'agent', 'publishing', 'after'];
const AFTER_MS = 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const Database = createRequire(import.meta.url)('better-sqlite3');

/**
 * A `git` that appends `<epoch µs> <arguments>` to `logFile`, then runs the real one. The path is
 * written into the script: the service passes git only the variables it allows.
 */
function gitWrapper(dir, logFile) {
  const real = execFileSync('bash', ['-c', 'command -v git']).toString().trim();
  fs.mkdirSync(dir, { recursive: true });
  const script = `#!/bin/bash\nline="\${*//$'\\n'/ }"\nprintf '%s %s\\n' "\${EPOCHREALTIME/./}" "$line" >> ${JSON.stringify(logFile)}\nexec ${real} "$@"\n`;
  fs.writeFileSync(path.join(dir, 'git'), script, { mode: 0o755 });
}

/** The git subcommand of a logged argument list (skipping `-c key=value`, `-C dir` and flags). */
function subcommand(args) {
  const words = args.split(' ');
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '-c' || words[i] === '-C') i++;
    else if (!words[i].startsWith('-')) return words[i];
  }
  return 'git';
}

/** Runs `count` jobs one at a time on a fresh serve of `tree`; the per-phase totals per job. */
export async function profileJobs({ tree, temp, modelLog, serve, count, steps }) {
  const gitLog = path.join(temp, `git-${path.basename(path.dirname(tree.dataDir))}-${Date.now()}.log`);
  const wrapperDir = path.join(temp, `git-wrapper-${Date.now()}`);
  gitWrapper(wrapperDir, gitLog);
  const statementsFile = path.join(temp, 'profile-statements.json');
  const server = await serve(tree, 4, statementsFile, {
    PATH: `${wrapperDir}:${process.env.PATH}`,
    BENCH_STATEMENTS_TIMES: '1',
  });
  const database = new Database(tree.env.DATABASE_URL.slice('sqlite:'.length), { readonly: true });
  const done = database.prepare('select completed_at from jobs where id = ?');
  const samples = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ at: Date.now(), ...cpuTicks([server.pid]) });
      await sleep(10);
    }
  })();
  const jobs = [];
  try {
    fs.rmSync(modelLog, { force: true });
    // One warm-up job per project, then the measured ones; the status is read from the database
    // file, so that waiting adds no request, statement or CPU to the service.
    for (let n = 0; n < tree.projects.length + count; n++) {
      const project = tree.projects[n % tree.projects.length];
      const name = `p${Date.now()}-${n}`;
      const postedAt = Date.now();
      const { id } = await api(server.address, project, 'POST', '/job', {
        prompt: `Add a page for this benchmark job. [bench ${name}]`,
      });
      let completedAt = null;
      while (!completedAt) {
        completedAt = done.get(id)?.completed_at;
        if (!completedAt) await sleep(20);
      }
      await sleep(AFTER_MS);
      if (n >= tree.projects.length)
        jobs.push({ name, project, id, postedAt, completedAt: Date.parse(completedAt) });
    }
  } finally {
    sampling = false;
    await sampler;
  }
  for (const job of jobs) job.events = await jobEvents(server.address, job.project, job.id);
  database.close();
  await stop(server.child);
  const calls = modelCalls(modelLog);
  const gitStarts = fs
    .readFileSync(gitLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      return { at: Number(line.slice(0, space)) / 1000, command: subcommand(line.slice(space + 1)) };
    });
  const statementTimes = JSON.parse(fs.readFileSync(statementsFile, 'utf8')).at;
  return summarise(jobs, calls, steps, { gitStarts, statementTimes, samples });
}

/** Totals per phase over the jobs, divided by their number. */
function summarise(jobs, calls, steps, { gitStarts, statementTimes, samples }) {
  const totals = Object.fromEntries(
    PHASES.map((phase) => [
      phase,
      { git: 0, commands: new Map(), sql: new Map(), statements: 0, service: 0, children: 0, ms: 0 },
    ]),
  );
  const ticksAt = (time) => {
    let found = samples[0];
    for (const sample of samples) {
      if (sample.at > time) break;
      found = sample;
    }
    return found;
  };
  let measured = 0;
  for (const job of jobs) {
    const phaseAt = (phase) =>
      Date.parse(job.events.findLast((e) => e.type === 'phase' && e.data.phase === phase)?.at);
    const mine = calls.get(job.name) ?? [];
    const { completedAt } = job;
    if (mine.length !== steps || Number.isNaN(completedAt)) continue;
    measured += 1;
    const bounds = [
      job.postedAt,
      phaseAt('preparing'),
      phaseAt('running'),
      mine[mine.length - 1].answered,
      completedAt,
      completedAt + AFTER_MS,
    ];
    PHASES.forEach((phase, i) => {
      const [from, to] = [bounds[i], bounds[i + 1]];
      const total = totals[phase];
      total.ms += to - from;
      for (const start of gitStarts)
        if (start.at >= from && start.at < to) {
          total.git += 1;
          total.commands.set(start.command, (total.commands.get(start.command) ?? 0) + 1);
        }
      for (const [at, sql] of statementTimes)
        if (at >= from && at < to) {
          total.statements += 1;
          const kind = statementKind(sql);
          total.sql.set(kind, (total.sql.get(kind) ?? 0) + 1);
        }
      const [a, b] = [ticksAt(from), ticksAt(to)];
      total.service += (b.service - a.service) * TICK_SECONDS * 1000;
      total.children += (b.children - a.children) * TICK_SECONDS * 1000;
    });
  }
  for (const total of Object.values(totals)) {
    for (const key of ['git', 'statements', 'service', 'children', 'ms']) total[key] /= measured || 1;
    for (const counts of [total.commands, total.sql])
      for (const [key, n] of counts) counts.set(key, n / (measured || 1));
  }
  return { measured, totals };
}

/** A statement by its verb and first table (`select jobs`, `insert job_events`). */
function statementKind(sql) {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '?';
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(sql)?.[1] ?? '';
  return `${verb} ${table}`.trim();
}

/** The statements of each phase by kind, most frequent first (BENCH_PROFILE_SQL=1 prints them). */
export function statementTable(profiles) {
  for (const profile of profiles)
    for (const phase of PHASES) {
      const kinds = [...profile.totals[phase].sql].sort((a, b) => b[1] - a[1]);
      console.log(`${profile.tree}, ${phase}: ${kinds.map(([k, n]) => `${k} ${n.toFixed(1)}`).join(', ')}`);
    }
}

/** One row per tree and phase: time, CPU, git starts (by subcommand) and statements per job. */
export function profileTable(profiles) {
  const rows = [];
  for (const profile of profiles) {
    for (const phase of PHASES) {
      const total = profile.totals[phase];
      const commands = [...total.commands]
        .sort((a, b) => b[1] - a[1])
        .map(([command, n]) => `${command} ${Number.isInteger(n) ? n : n.toFixed(1)}`)
        .join(', ');
      rows.push([
        profile.tree,
        phase,
        `${Math.round(total.ms)} ms`,
        `${Math.round(total.service)} + ${Math.round(total.children)} ms`,
        total.git.toFixed(1),
        commands || '–',
        total.statements.toFixed(0),
      ]);
    }
  }
  printTable(
    ['tree', 'phase', 'time', 'CPU service + children', 'git starts', 'git commands', 'statements'],
    rows,
  );
}
