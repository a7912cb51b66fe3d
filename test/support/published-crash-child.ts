/**
 * A worker with the real agent in a process of its own, which stops dead right before it would
 * record a run's completion: it prints `{ "completing": jobId }` and waits to be killed, as a
 * worker that dies between publishing and completing. Environment: DATABASE_URL,
 * AGENTJOBS_DATA_DIR, MODEL_URL. Prints `{ "ready": true }` once started.
 */
import { openDb } from '../../src/store/db.js';
import { createStore } from '../../src/store/store.js';
import { realAgentConfig, startRealWorker } from './real-agent.js';

const store = createStore(openDb({ url: process.env.DATABASE_URL ?? '', poolSize: 5 }));
const stalled = {
  ...store,
  queue: {
    ...store.queue,
    complete: (lease: { jobId: string }) => {
      process.stdout.write(`${JSON.stringify({ completing: lease.jobId })}\n`);
      return new Promise<never>(() => {});
    },
  },
} as typeof store;
const config = realAgentConfig(process.env.AGENTJOBS_DATA_DIR ?? '', process.env.MODEL_URL ?? '', {
  worker: { pollMs: 100 },
});
await startRealWorker(config, stalled, 'doomed');
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
