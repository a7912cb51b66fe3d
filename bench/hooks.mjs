// Code-host hook receipt under a flood: 1,000 GitHub push deliveries, each delivery id sent twice
// with the repeats close together, signed as GitHub signs them, to the app listening on loopback.
// The test suite sends 20 (test/hooks/receiver.test.ts); this is the load run it used to make.
//
//   npm run bench:hooks       (BENCH_DELIVERY_IDS=1000, BENCH_CONCURRENCY=20)
//
// For each database (SQLite; PostgreSQL when BENCH_POSTGRES_URL or 127.0.0.1:5432 is reachable) it
// checks what the suite checked (every answer 202, one `recorded` and one `duplicate` per id, one
// row per id) and prints the time it took and the deliveries per second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/log.ts';
import { buildHttpApp } from '../src/server.ts';
import { openDb } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { lazySecretBox } from '../src/store/secrets.ts';
import { createStore } from '../src/store/store.ts';
import { hookSender } from '../test/support/host-hooks.ts';
import { scratchDatabase } from './postgres.mjs';
import { machine, printTable } from './table.mjs';

const IDS = Number(process.env.BENCH_DELIVERY_IDS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const POSTGRES = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });

async function run(label, databaseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-hooks-'));
  const config = loadConfig({
    AGENTJOBS_DATA_DIR: dataDir,
    AGENTJOBS_SECRET_KEY: '0'.repeat(64),
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dataDir, 'agentjobs.db')}`,
    LOG_LEVEL: 'warn',
  });
  const db = openDb({ url: config.databaseUrl, poolSize: 5 });
  await migrate(db);
  const store = createStore(db);
  const secrets = lazySecretBox(config);
  const app = await buildHttpApp({
    config,
    secrets,
    lifecycle: { draining: false },
    store,
    logger: createLogger('warn', discard),
  });
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const project = await store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/org/docs.git',
      host: 'github',
    });
    const secret = await store.projects.rotateHookSecret(project.id, secrets());
    const url = `${base}/v2/hooks/${project.id}/github`;
    const github = hookSender('github', 'https://github.com');
    const message = github.hookMessage('org/docs', { kind: 'push' });
    const queue = Array.from({ length: IDS }, (_, index) => `flood-${index}`).flatMap((id) => [id, id]);
    const statuses = new Map();
    const outcomes = new Map();
    const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
    const started = performance.now();
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const sent = await github.sendHook(url, message, secret, { deliveryId: id });
        count(statuses, sent.status);
        count(outcomes, String(sent.body.outcome));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const rows = await store.hostEvents.count(project.id);
    const right =
      statuses.get(202) === 2 * IDS &&
      statuses.size === 1 &&
      outcomes.get('recorded') === IDS &&
      outcomes.get('duplicate') === IDS &&
      rows === IDS;
    if (!right) {
      const seen = JSON.stringify({
        statuses: Object.fromEntries(statuses),
        outcomes: Object.fromEntries(outcomes),
        rows,
      });
      throw new Error(`${label}: the flood was not absorbed as it should be: ${seen}`);
    }
    return [
      label,
      String(2 * IDS),
      String(rows),
      seconds.toFixed(1),
      String(Math.round((2 * IDS) / seconds)),
    ];
  } finally {
    await app.close();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows = [await run('SQLite', null)];
const postgres = await scratchDatabase(POSTGRES);
if (postgres) {
  try {
    rows.push(await run('PostgreSQL', postgres.url));
  } finally {
    await postgres.drop();
  }
}
console.log(`\n${IDS} GitHub push delivery ids, each sent twice, ${CONCURRENCY} in flight; ${machine()}`);
printTable(['database', 'deliveries', 'rows', 'seconds', 'deliveries/s'], rows);
