// What a polled job costs the store, in one process, without HTTP or a load generator around it:
// `store.jobs.get` on SQLite (the read every GET job makes) and, for scale, the bare prepared
// statement under it, in better-sqlite3's row-object mode and in its array mode.
//
//   npm run build && node bench/store-reads.mjs
//
// BENCH_BEFORE=<another checkout's built dist> runs the same `jobs.get` of that build in the same
// process, on the same database, rounds interleaved: a before and an after on equal terms.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { machine, printTable } from './table.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const ROUNDS = 5;
const dist = (root) => (file) => import(pathToFileURL(path.resolve(root, file)).href);

async function openStore(root, file) {
  const { openDb } = await dist(root)('store/db.js');
  const { createStore } = await dist(root)('store/store.js');
  return createStore(openDb({ url: `sqlite:${file}` }));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-reads-'));
const file = path.join(dir, 'agentjobs.db');
const { migrate } = await dist('dist')('store/migrate.js');
const store = await openStore('dist', file);
await migrate(store.db);
const project = await store.projects.create({ name: 'Bench', repository: dir });
const job = await store.jobs.create({
  projectId: project.id,
  prompt: 'Fix the typo on the home page',
  model: 'anthropic:claude-sonnet-4-5',
  baseRef: 'main',
  repository: project.repository,
  draft: false,
});
const before = process.env.BENCH_BEFORE ? await openStore(process.env.BENCH_BEFORE, file) : null;

const runs = [['store.jobs.get', () => store.jobs.get(project.id, job.id)]];
if (before) runs.push(['store.jobs.get (BENCH_BEFORE)', () => before.jobs.get(project.id, job.id)]);
if (Number(process.versions.node.split('.')[0]) < 24) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const reader = new Database(file, { readonly: true });
  const text = 'select * from "jobs" where "id" = ? and "project_id" = ?';
  const objects = reader.prepare(text);
  const arrays = reader.prepare(text).raw(true);
  runs.push(['better-sqlite3 statement, rows as objects', () => objects.all(job.id, project.id)]);
  runs.push(['better-sqlite3 statement, rows as arrays', () => arrays.all(job.id, project.id)]);
}

const times = new Map(runs.map(([label]) => [label, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, call] of runs) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await call();
    times.get(label).push(Number(process.hrtime.bigint() - started) / CALLS / 1000);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`\n${CALLS} calls per round, ${ROUNDS} rounds interleaved, ${machine()}`);
printTable(
  ['read', 'µs per call (median)', 'rounds'],
  runs.map(([label]) => [
    label,
    median(times.get(label)).toFixed(1),
    times
      .get(label)
      .map((t) => t.toFixed(1))
      .join(' '),
  ]),
);
await store.close();
await before?.close();
fs.rmSync(dir, { recursive: true, force: true });
