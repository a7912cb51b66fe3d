/**
 * A worker in a process of its own, for tests that need two processes on one database (two SQLite
 * handles in one process would wait on each other's locks synchronously). Runs `node --import tsx`.
 * Environment: DATABASE_URL, AGENTJOBS_DATA_DIR, WORKER_ID. Prints one JSON line per agent call
 * (`{ "call": { branch, projectId, start, end } }`), `{ "ready": true }` once started, and stops on
 * SIGTERM or when stdin closes.
 */
import path from 'node:path';
import { openDb } from '../../src/store/db.js';
import { createStore } from '../../src/store/store.js';
import { fakeAgent, sleep, startTestWorker, testConfig } from './worker.js';

const store = createStore(openDb({ url: process.env.DATABASE_URL ?? '', poolSize: 5 }));
const agent = fakeAgent(async ({ workspace, prompts }) => {
  const start = Date.now();
  await sleep(5 + Math.random() * 20);
  const n = Number(prompts[0]?.split(' ')[1]);
  if (n % 3 === 0) await workspace.writeFile(`jobs/${n}.md`, `job ${n}\n`);
  const call = {
    branch: workspace.branch,
    projectId: path.basename(workspace.mirrorPath, '.git'),
    start,
    end: Date.now(),
  };
  process.stdout.write(`${JSON.stringify({ call })}\n`);
  return undefined;
});
// Another process's in-process wake-ups do not reach this one: it polls quickly instead.
const config = testConfig(process.env.AGENTJOBS_DATA_DIR ?? '', { pollMs: 100 });
const { worker } = await startTestWorker({ config, store, agent, id: process.env.WORKER_ID ?? 'child' });
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.stop({ graceMs: 0 });
  await store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
