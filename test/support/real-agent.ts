/**
 * A worker with the real agent (`src/agent/`), talking to the scripted OpenAI-compatible model over
 * HTTP: for tests of what a run sends, stores and publishes. Used in process and by
 * `published-crash-child.ts` in a process of its own.
 */

import { runAgent } from '../../src/agent/loop.js';
import { createLanguageModel } from '../../src/agent/models.js';
import { createWorker, type Worker } from '../../src/background/worker.js';
import type { Config, WorkerConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { createServerCodeHosts } from '../../src/server.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';
import { memoryLog } from './app.js';
import { testConfig } from './worker.js';

/** The server's own secrets in these tests; none may leave a run. */
export const SECRETS = {
  OPENAI_COMPATIBLE_API_KEY: 'compat-provider-secret-0123456789',
  AGENTJOBS_SECRET_KEY: 'server-secret-key-abcdefghijklmnopqrstuvwxyz-0123',
  AGENTJOBS_ADMIN_PASSWORD: 'admin-password-for-tests-4567',
};

/** A config whose model is the scripted one at `modelUrl`, with quick leases and heartbeats. */
export function realAgentConfig(
  dataDir: string,
  modelUrl: string,
  options: { worker?: Partial<WorkerConfig>; env?: Record<string, string> } = {},
): Config {
  return testConfig(
    dataDir,
    { pollMs: 500, ...options.worker },
    {
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: modelUrl,
      ...SECRETS,
      ...options.env,
    },
  );
}

/** Starts a worker with the real agent; `store` may be wrapped to stop it at a chosen point. */
export async function startRealWorker(config: Config, store: Store, id: string) {
  const logs: string[] = [];
  const worker: Worker = createWorker({
    config,
    store,
    logger: createLogger('debug', memoryLog(logs)),
    hosts: createServerCodeHosts(config, store, { secrets: lazySecretBox(config) }),
    runAgent,
    resolveModel: createLanguageModel,
    id,
  });
  await worker.start();
  return { worker, logs };
}
