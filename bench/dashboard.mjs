// How long each dashboard page takes to render with 10,000 jobs in the database (budget: 100 ms).
//
//   npm run bench:api            (runs after the API table; BENCH_JOBS=10000, BENCH_SAMPLES=30)
//
// Starts the built `agentjobs api` (no worker, so the jobs stay as created) on SQLite, creates the
// jobs over the API, one job with 300 follow-ups and one local pull request with a real diff, signs
// in as a browser would, then fetches every page BENCH_SAMPLES times, one at a time, over loopback.
// The time is the client's (request sent to last byte), so it bounds the server's render time.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { firstLine } from './processes.mjs';
import { machine, printTable } from './table.mjs';

const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const CLI = path.resolve('dist/cli/main.js');
const PASSWORD = 'bench dashboard password';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-ui-'));
const env = {
  ...process.env,
  AGENTJOBS_DATA_DIR: dataDir,
  DATABASE_URL: `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
  AGENTJOBS_RATE_LIMIT_PER_HOUR: '10000000',
  AGENTJOBS_MAX_ACTIVE_JOBS: '0',
  AGENTJOBS_ADMIN_PASSWORD: PASSWORD,
  LOG_LEVEL: 'warn',
};
const cli = (...args) =>
  JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--json'], { env }).toString());
const git = (repo, ...args) =>
  execFileSync('git', ['-C', repo, ...args])
    .toString()
    .trim();

// A repository with a branch that changes 20 files, for the pull request page.
const repo = path.join(dataDir, 'repo');
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
for (let i = 0; i < 20; i++)
  fs.writeFileSync(path.join(repo, `page-${i}.md`), `# Page ${i}\n\n${'Text. '.repeat(40)}\n`);
git(repo, 'add', '-A');
git(repo, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-q', '-m', 'init');
git(repo, 'checkout', '-q', '-b', 'agentjobs/bench');
for (let i = 0; i < 20; i++)
  fs.appendFileSync(path.join(repo, `page-${i}.md`), `\nA new paragraph for page ${i}.\n`);
git(repo, '-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-q', '-am', 'Add paragraphs');
const headSha = git(repo, 'rev-parse', 'HEAD');
git(repo, 'checkout', '-q', '--detach');

const project = cli('project', 'create', '--name', 'Bench', '--repo', repo, '--base', 'main');
const { key } = cli('key', 'create', '--project', project.id);
const child = spawn(process.execPath, [CLI, 'api'], {
  env: { ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const [, base] = await firstLine(child, /"address":"([^"]+)"/);
const api = `${base}/v2/agent/${project.id}`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const started = Date.now();
let made = 0;
let lastJob = null;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (made < JOBS) {
      made++;
      const response = await fetch(`${api}/job`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: `Benchmark job ${made}: fix the typo on page ${made % 20}` }),
      });
      if (response.status !== 201) throw new Error(`create answered ${response.status}`);
      lastJob = await response.json();
    }
  }),
);
console.log(`Created ${JOBS} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
for (let i = 0; i < 300; i++)
  await fetch(`${api}/job/${lastJob.id}/message`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ prompt: `Follow-up ${i}` }),
  });

// The pull request, written the way the local host writes it.
const { openDb } = await import('../dist/store/db.js');
const { createStore } = await import('../dist/store/store.js');
const store = createStore(openDb({ url: env.DATABASE_URL }));
const { pullRequest } = await store.pullRequests.openOrUpdate({
  projectId: project.id,
  jobId: lastJob.id,
  headBranch: 'agentjobs/bench',
  baseBranch: 'main',
  title: 'Add paragraphs',
  body: 'Adds a paragraph to every page.',
  draft: false,
  headSha,
});
// Where page 100 of the list starts: paging deep must cost what the first page costs.
const deep = (await store.jobs.list(project.id, { limit: Math.floor(JOBS / 2) })).jobs.at(-1);
await store.close();

// Sign in as a browser does: the form's CSRF cookie and token, then the session cookie.
const cookiesOf = (response) => response.headers.getSetCookie().map((line) => line.split(';')[0]);
const form = await fetch(`${base}/ui/sign-in`);
const csrf = cookiesOf(form);
const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())[1];
const signedIn = await fetch(`${base}/ui/sign-in`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrf.join('; ') },
  body: new URLSearchParams({ _csrf: token, password: PASSWORD }),
});
const cookie = [...csrf, ...cookiesOf(signedIn)].join('; ');
if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);

const ui = `/ui/projects/${project.id}`;
const pages = [
  ['sign-in', '/ui/sign-in'],
  ['projects', '/ui/projects'],
  ['jobs, newest 50', `${ui}/jobs`],
  ['jobs, status=active', `${ui}/jobs?status=active`],
  ['jobs, status=completed (none)', `${ui}/jobs?status=completed`],
  ['jobs, half way down the list', `${ui}/jobs?before=${deep.id}`],
  ['job (300 follow-ups)', `${ui}/jobs/${lastJob.id}`],
  ['API keys', `${ui}/keys`],
  ['settings', `${ui}/settings`],
  ['pull requests', `${ui}/pulls`],
  ['pull request (20-file diff)', `${ui}/pulls/${pullRequest.number}`],
];
const rows = [];
for (const [label, url] of pages) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < SAMPLES + 3; i++) {
    const t0 = performance.now();
    // Signed in, the sign-in page only redirects; it is measured as a visitor sees it.
    const response = await fetch(`${base}${url}`, {
      headers: label === 'sign-in' ? {} : { cookie },
      redirect: 'manual',
    });
    const body = await response.text();
    const ms = performance.now() - t0;
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    bytes = body.length;
    if (i >= 3) times.push(ms); // the first requests warm the statement cache and the JIT
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  rows.push([
    label,
    at(0.5).toFixed(1),
    at(0.95).toFixed(1),
    times.at(-1).toFixed(1),
    `${(bytes / 1024).toFixed(0)} KiB`,
    at(0.95) < 100 ? 'yes' : 'NO',
  ]);
}
child.kill();
fs.rmSync(dataDir, { recursive: true, force: true });

console.log(
  `\nDashboard pages with ${JOBS} jobs on SQLite, ${SAMPLES} sequential requests each, ${machine()}`,
);
printTable(['page', 'p50 ms', 'p95 ms', 'max ms', 'size', 'p95 < 100 ms'], rows);
