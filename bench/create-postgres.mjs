// Where a job create on PostgreSQL spends its time, at the store, without HTTP around it: the
// statements of one create, the median time of each (sequential creates), and creates a second
// with 50 at once, with this process's CPU per create.
//
//   npm run build && node bench/create-postgres.mjs [checkout]
//
// [checkout]: another checkout's root, whose built `dist` is measured instead (a before).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { scratchDatabase } from './postgres.mjs';
import { machine, printTable } from './table.mjs';

const root = path.resolve(process.argv[2] ?? '.');
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);
const { openDb } = await dist('store/db.js');
const { migrate } = await dist('store/migrate.js');
const { createStore } = await dist('store/store.js');
const database = await scratchDatabase(
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
if (!database) throw new Error('PostgreSQL is not reachable');
const db = openDb({ url: database.url, poolSize: 10 });
await migrate(db);
const store = createStore(db);
const project = await store.projects.create({ name: 'Bench', repository: '/tmp/bench' });
const create = () =>
  store.jobs.create({
    projectId: project.id,
    prompt: 'Fix the typo on the home page',
    model: 'openai:gpt-5',
    baseRef: 'main',
    repository: project.repository,
    draft: false,
  });

// Every statement goes through pg's Client.query: counted, and timed from sent to answered.
let sent = null;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const result = original.call(this, config, ...rest);
  if (sent) {
    const text = (typeof config === 'string' ? config : config.text).replace(/\s+/g, ' ');
    const started = performance.now();
    const entry = { text, ms: Number.NaN };
    sent.push(entry);
    result?.then?.(() => {
      entry.ms = performance.now() - started;
    });
  }
  return result;
};

for (let i = 0; i < 200; i++) await create();
const perStatement = [];
const sequentialStart = performance.now();
for (let i = 0; i < 300; i++) {
  sent = [];
  await create();
  perStatement.push(sent);
}
sent = null;
const sequentialMs = (performance.now() - sequentialStart) / 300;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const cpuBefore = process.cpuUsage();
const started = performance.now();
let done = 0;
await Promise.all(
  Array.from({ length: 50 }, async () => {
    while (performance.now() - started < 5000) {
      await create();
      done++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);

console.log(`\n${root}: ${machine()}`);
printTable(
  ['statement of one create', 'median ms (300 sequential creates)'],
  perStatement[0].map((statement, index) => [
    statement.text.slice(0, 60),
    median(perStatement.map((statements) => statements[index]?.ms ?? Number.NaN)).toFixed(2),
  ]),
);
console.log(
  `${perStatement[0].length} statements; sequential ${sequentialMs.toFixed(2)} ms per create; ` +
    `50 at once ${(done / seconds).toFixed(0)} creates/s, ${((cpu.user + cpu.system) / 1000 / done).toFixed(2)} ms of this process's CPU per create`,
);
await store.close();
await database.drop();
