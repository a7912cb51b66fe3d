import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.js';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { openDb } from './store/db.js';
import { migrate } from './store/migrate.js';
import { createStore, type Store } from './store/store.js';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  logger: Logger;
  url: string;
  /** Stops taking requests, lets those in flight finish, closes the database. */
  stop(): Promise<void>;
}

/**
 * Reads the server's secret key (for encrypting code-host tokens) from the config, or from the
 * data directory, making one there on first start so a newcomer has nothing to set up.
 */
export function ensureSecretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** Opens the database and brings its schema up to date. */
export async function openStore(config: Config): Promise<Store> {
  const db = openDb({ url: config.databaseUrl });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createStore(db);
}

/** Starts the HTTP API (and, in later roles, the worker) and listens. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  ensureSecretKey(config);
  const store = await openStore(config);
  const lifecycle = { draining: false };
  const app = await buildApp({ config, store, logger, lifecycle });
  const address = await app.listen({ host: config.host, port: config.port });
  if (!config.defaultModel) {
    logger.warn(
      'No model is configured: jobs will fail with model_unavailable. Set AGENTJOBS_MODEL, or ANTHROPIC_API_KEY, OPENAI_API_KEY, or OPENAI_COMPATIBLE_BASE_URL with AGENTJOBS_MODEL=openai-compatible:<model>.',
    );
  }
  logger.info({ address, dataDir: config.dataDir }, 'agentjobs is listening');
  return {
    app,
    store,
    logger,
    url: address,
    async stop() {
      lifecycle.draining = true;
      await app.close();
      await store.close();
    },
  };
}
