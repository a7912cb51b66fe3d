// A newcomer's first job with no model key, timed step by step: clone the repository, `npm ci`,
// `npm start`, `npx agentjobs quickstart --demo`, start the README's job, wait for it, merge its
// pull request with `npx agentjobs pr merge`.
//
//   node bench/first-hour.mjs            (clones this checkout's HEAD; BENCH_RUNS=1 by default)
//
// Everything runs in a fresh temporary folder, so nothing of this checkout's data directory is
// used. HOME stays the user's: `npm ci` reads packages from npm's cache when they are there (as on
// a machine that installed anything before) and node-gyp finds Node's headers where npm's settings
// say. Prints one table, a row per step, the wall time of each and the total.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const SOURCE = path.resolve(new URL('..', import.meta.url).pathname);
const PROMPT = 'Add a FAQ page that answers how to install the CLI, and link it from the README';

const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1);

function run(command, args, options) {
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }).toString();
}

async function once() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-first-hour-'));
  const checkout = path.join(home, 'agentjobs');
  // A port of its own, so a server of this checkout can keep running meanwhile.
  const port = String(18_000 + Math.floor(Math.random() * 2_000));
  const env = {
    ...process.env,
    PORT: port,
    AGENTJOBS_URL: `http://127.0.0.1:${port}`,
    AGENTJOBS_PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  for (const name of [
    'AGENTJOBS_DATA_DIR',
    'DATABASE_URL',
    'AGENTJOBS_MODEL',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
  ])
    delete env[name];
  const steps = [];
  const step = async (name, work) => {
    const started = performance.now();
    const result = await work();
    steps.push([name, seconds(started)]);
    return result;
  };
  const total = performance.now();
  let server;
  try {
    await step('git clone', () => run('git', ['clone', '-q', SOURCE, checkout], { env }));
    await step('npm ci (builds once)', () =>
      run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: checkout, env }),
    );
    server = await step('npm start → listening', async () => {
      const child = spawn('npm', ['start'], {
        cwd: checkout,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await firstLine(child, /listening/);
      return child;
    });
    const npx = (args) => JSON.parse(run('npx', ['agentjobs', ...args, '--json'], { cwd: checkout, env }));
    const start = await step('npx agentjobs quickstart --demo', () => npx(['quickstart', '--demo']));
    const api = `${env.AGENTJOBS_URL}/v2/agent/${start.project.id}`;
    const headers = { authorization: `Bearer ${start.key}`, 'content-type': 'application/json' };
    const job = await step('POST job → completed', async () => {
      const created = await (
        await fetch(`${api}/job`, { method: 'POST', headers, body: JSON.stringify({ prompt: PROMPT }) })
      ).json();
      for (;;) {
        const current = await (await fetch(`${api}/job/${created.id}`, { headers })).json();
        if (current.status !== 'active') return current;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    if (job.status !== 'completed' || !job.prLink)
      throw new Error(`the job ended ${job.status}: ${JSON.stringify(job.error)}`);
    await step('npx agentjobs pr merge', () =>
      npx(['pr', 'merge', '--project', start.project.id, '--job', job.id]),
    );
    const merged = run('git', ['-C', start.repository.path, 'log', '--oneline', '-1', 'main']).trim();
    steps.push(['total (clone → merged pull request)', seconds(total)]);
    return { steps, merged };
  } finally {
    if (server?.pid) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

console.log(`# ${machine()}, load average ${os.loadavg()[0].toFixed(1)} at start\n`);
for (let i = 1; i <= RUNS; i++) {
  const { steps, merged } = await once();
  printTable(['step', 'seconds'], steps);
  console.log(`\nmain after the merge: ${merged}\n`);
}
