// From a code host's webhook to a job: how long a signed GitHub push takes to become an `active`
// job of a code_change automation, and what a burst of 1,000 deliveries costs.
//
//   npm run build && node bench/automations.mjs      (BENCH_LATENCY=50, BENCH_BURST=1000,
//                                                      BENCH_IN_FLIGHT=20)
//
// Starts the built `agentjobs api` (the receiver, the dispatcher and the poller; no worker, so each
// job stays `queued`, which is active) on SQLite. The product repository is real and served over
// git's smart HTTP on loopback (`git http-backend`), so the dispatcher reads each push's diff from
// a real mirror, fetched once the first push names a commit the mirror lacks. Each delivery names
// the next commit of a prepared chain. Latency: deliveries one at a time, from just before the POST
// to the job being listed (the API polled every 5 ms). The burst: BENCH_IN_FLIGHT deliveries in
// flight, the wall time until the last job exists, the server's CPU (its git children included)
// and the rows written. Prints one Markdown table.
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readStat, TICK_SECONDS } from './proc.mjs';
import { benchProject, cli, firstLine, killedOnExit, stop } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const LATENCY = Number(process.env.BENCH_LATENCY ?? 50);
const BURST = Number(process.env.BENCH_BURST ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 20);
const CLI = path.resolve('dist/cli/main.js');

/**
 * A chain of `count` commits after a first one, made at once with `git fast-import` on a ref of its
 * own, with main at the first; their ids, oldest first. `publish` moves main along the chain, so
 * each delivery names a commit the service's mirror has not fetched yet, as a real push does.
 */
function productRepository(dir, count) {
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  let stream = '';
  for (let index = 0; index <= count; index++) {
    const content = `export const version = ${index};\n`;
    const message = index === 0 ? 'First version' : `Change ${index}`;
    stream += `commit refs/bench/chain\nmark :${index + 1}\ncommitter bench <bench@example.com> ${1_700_000_000 + index} +0000\n`;
    stream += `data ${Buffer.byteLength(message)}\n${message}\n`;
    if (index > 0) stream += `from :${index}\n`;
    stream += `M 644 inline src/version.ts\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  }
  execFileSync('git', ['-C', dir, 'fast-import', '--quiet', '--export-marks=marks'], { input: stream });
  const marks = fs
    .readFileSync(path.join(dir, 'marks'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
  const commits = marks.sort((a, b) => Number(a[0].slice(1)) - Number(b[0].slice(1))).map(([, id]) => id);
  publish(dir, commits[0]);
  return commits;
}

/** Moves the served main to `commit`: the push a delivery then reports. */
function publish(dir, commit) {
  execFileSync('git', ['-C', dir, 'update-ref', 'refs/heads/main', commit]);
}

/** Serves the bare repositories under `root` read-only over smart HTTP (git's own CGI program). */
function gitHttpServer(root) {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://git.local');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method,
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    request.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headDone = false;
    cgi.stdout.on('data', (chunk) => {
      if (headDone) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else response.setHeader(name, value);
      }
      response.statusCode = status;
      response.write(head.subarray(end + 4));
    });
    cgi.on('close', () => response.end());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function pushPayload(cloneUrl, before, after) {
  const repository = {
    id: 7,
    name: 'product',
    full_name: 'acme/product',
    owner: { login: 'acme' },
    html_url: cloneUrl.replace(/\.git$/, ''),
    clone_url: cloneUrl,
    default_branch: 'main',
  };
  return {
    ref: 'refs/heads/main',
    before,
    after,
    created: false,
    deleted: false,
    commits: [{ id: after, message: 'Change', added: [], modified: ['src/version.ts'], removed: [] }],
    head_commit: { id: after, message: 'Change' },
    repository,
    pusher: { name: 'octocat' },
    sender: { login: 'octocat' },
  };
}

async function deliver(hookUrl, secret, payload) {
  const body = JSON.stringify(payload);
  const response = await fetch(hookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  if (response.status !== 202) throw new Error(`hook answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const cpuSeconds = (pid) => {
  const stat = readStat(pid);
  return (stat.utime + stat.stime + stat.cutime + stat.cstime) * TICK_SECONDS;
};

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-automations-'));
  const served = path.join(dataDir, 'served');
  const productDir = path.join(served, 'acme', 'product.git');
  const commits = productRepository(productDir, LATENCY + 1 + BURST);
  const gitServer = await gitHttpServer(served);
  const cloneUrl = `http://127.0.0.1:${gitServer.address().port}/acme/product.git`;
  const databaseFile = path.join(dataDir, 'agentjobs.db');
  const env = {
    AGENTJOBS_DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${databaseFile}`,
    AGENTJOBS_MAX_ACTIVE_JOBS: '0',
    AGENTJOBS_AUTOMATION_RUNS_PER_DAY: '10000000',
    LOG_LEVEL: 'warn',
  };
  const { project, key } = benchProject(dataDir, env, CLI);
  cli(
    ['project', 'context', 'add', project.id, '--name', 'product', '--repo', cloneUrl, '--host', 'github'],
    env,
    CLI,
  );
  const { secret } = cli(['project', 'hook-secret', project.id], env, CLI);
  const child = killedOnExit(
    spawn(process.execPath, [CLI, 'api'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const [, address] = await firstLine(child, /"address":"([^"]+)"/);
  const api = `${address}/v2/agent/${project.id}`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${api}/automations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'Docs from code',
      trigger: { type: 'code_change', repository: 'product', branch: 'main' },
      prompt: 'The code changed:\n{{change.commits}}\n{{change.diff}}',
      group: false,
    }),
  });
  if (created.status !== 201) throw new Error(`automation: ${created.status} ${await created.text()}`);
  const hookUrl = `${address}/v2/hooks/${project.id}/github`;

  // Latency: one delivery at a time, each after its commit reached the served main (so each one's
  // dispatch fetches); the job is listed once the dispatcher made it. The first delivery after the
  // automation is made also waits for the mirror's first clone, so it is reported on its own.
  const latencies = [];
  for (let index = 1; index <= LATENCY + 1; index++) {
    publish(productDir, commits[index]);
    const started = performance.now();
    await deliver(hookUrl, secret, pushPayload(cloneUrl, commits[index - 1], commits[index]));
    for (;;) {
      const { jobs } = await (await fetch(`${api}/job?limit=1`, { headers })).json();
      if (jobs[0]?.trigger?.source === commits[index] && jobs[0].status === 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    latencies.push(performance.now() - started);
  }
  const first = latencies.shift();
  latencies.sort((a, b) => a - b);

  // The burst: BURST deliveries, IN_FLIGHT at a time; done when every one has its job.
  const database = new Database(databaseFile, { readonly: true });
  const count = (table) => database.prepare(`select count(*) as n from ${table}`).get().n;
  const tables = ['host_events', 'automation_runs', 'jobs', 'job_events'];
  const rowsBefore = Object.fromEntries(tables.map((table) => [table, count(table)]));
  const cpuBefore = cpuSeconds(child.pid);
  const burstStart = performance.now();
  let next = LATENCY + 2;
  const last = LATENCY + 1 + BURST;
  publish(productDir, commits[last]);
  const sender = async () => {
    while (next <= last) {
      const index = next++;
      await deliver(hookUrl, secret, pushPayload(cloneUrl, commits[index - 1], commits[index]));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
  const accepted = performance.now() - burstStart;
  while (count('jobs') - rowsBefore.jobs < BURST) await new Promise((resolve) => setTimeout(resolve, 50));
  const burstMs = performance.now() - burstStart;
  const cpu = cpuSeconds(child.pid) - cpuBefore;
  const rows = tables.map((table) => `${table} +${count(table) - rowsBefore[table]}`).join(', ');
  database.close();
  await stop(child);
  gitServer.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(
    `${machine()}, load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  printTable(
    ['measure', 'value'],
    [
      [
        'hook → active job, the first after the automation is made (the mirror is cloned)',
        `${first.toFixed(0)} ms`,
      ],
      [
        `hook → active job, the next ${LATENCY} one at a time (each fetches its commit): p50`,
        `${percentile(latencies, 50).toFixed(0)} ms`,
      ],
      ['p99', `${percentile(latencies, 99).toFixed(0)} ms`],
      ['max', `${latencies.at(-1).toFixed(0)} ms`],
      [`${BURST} deliveries (${IN_FLIGHT} in flight): all answered 202`, `${(accepted / 1000).toFixed(1)} s`],
      ['… and every job made', `${(burstMs / 1000).toFixed(1)} s`],
      [
        'server CPU for them (git children included)',
        `${cpu.toFixed(1)} s (${((cpu * 1000) / BURST).toFixed(1)} ms a delivery)`,
      ],
      ['rows written', rows],
    ],
  );
}

await main();
