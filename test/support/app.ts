import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/config.js';
import type { Job } from '../../src/domain/job.js';
import { generateKey, type KeyScope } from '../../src/domain/keys.js';
import type { Lifecycle } from '../../src/domain/lifecycle.js';
import { ensureAdminPassword } from '../../src/domain/password.js';
import type { Project } from '../../src/domain/project.js';
import { createLogger } from '../../src/log.js';
import { buildHttpApp, type HttpAppOptions } from '../../src/server.js';
import { lazySecretBox, type SecretBox } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';
import { makeTestJob, openTestStore, type TestDialect, type TestStore } from './db.js';
import { useFixture } from './use-fixture.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  database: TestStore;
  project: Project;
  /** A read+write key of `project`. */
  key: string;
  /** The secret box the app seals host tokens and webhook secrets with. */
  secrets: () => SecretBox;
  /** Every log line the app wrote, for leak checks. */
  logs: string[];
  /** The app's lifecycle: set `draining` to see it refuse new work as a stopping server does. */
  lifecycle: Lifecycle;
  makeKey(options?: {
    projectId?: string;
    scopes?: KeyScope[];
    ipAllowlist?: string[];
    expiresAt?: string;
  }): Promise<string>;
  /** Makes a job of `project` on `main` with `prompt`, straight in the store (no worker runs it). */
  makeJob(prompt: string): Promise<Job>;
  close(): Promise<void>;
}

/** One secret key for every app of a test file, as apps on one database share theirs. */
const SECRET_KEY = randomBytes(32).toString('hex');

/** Collects log lines in memory instead of printing them. */
export function memoryLog(lines: string[]) {
  return new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
}

export async function startTestApp(
  dialect: TestDialect,
  env: Record<string, string> = {},
  existing?: TestStore,
  /** More of the app's options (what the automation routes look up, for one). */
  extra: Partial<HttpAppOptions> = {},
): Promise<TestApp> {
  const database = existing ?? (await openTestStore(dialect));
  // The key is given, so nothing is written into the data directory, which an in-process app does
  // not need (no mirrors, no askpass): the folder is named, never made.
  const config = loadConfig({
    AGENTJOBS_DATA_DIR: join(tmpdir(), 'agentjobs-unused'),
    AGENTJOBS_SECRET_KEY: SECRET_KEY,
    LOG_LEVEL: 'debug',
    ...env,
  });
  const secrets = lazySecretBox(config);
  const logs: string[] = [];
  const lifecycle = { draining: false };
  const app = await buildHttpApp({
    config,
    secrets,
    lifecycle,
    store: database.store,
    logger: createLogger('debug', memoryLog(logs)),
    ...extra,
  });
  await app.ready();
  const project = await database.store.projects.create({ name: 'Docs', repository: '/srv/docs.git' });
  const makeKey: TestApp['makeKey'] = async (options = {}) => {
    const key = generateKey();
    await database.store.apiKeys.create({
      projectId: options.projectId ?? project.id,
      key,
      name: 'test',
      scopes: options.scopes ?? ['read', 'write'],
      ipAllowlist: options.ipAllowlist ?? null,
      expiresAt: options.expiresAt ?? null,
    });
    return key;
  };
  const key = await makeKey();
  const makeJob: TestApp['makeJob'] = (prompt) => makeTestJob(database.store, project, prompt);
  return {
    app,
    store: database.store,
    database,
    project,
    key,
    logs,
    lifecycle,
    secrets,
    makeKey,
    makeJob,
    close: async () => {
      await app.close();
      if (!existing) await database.close();
    },
  };
}

/**
 * Creates a job with `prompt` over real HTTP at `base` (a project's `/v2/agent/<id>/job` address)
 * with `key`, as a client does; resolves with its id.
 */
export async function createJobOverHttp(base: string, key: string, prompt: string): Promise<string> {
  const response = await fetch(base, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  return ((await response.json()) as { id: string }).id;
}

/**
 * `startTestApp` on SQLite with the admin password `password` set, for the enclosing `describe`:
 * started in its `beforeAll`, closed in its `afterAll`. See `useFixture`.
 */
export function useAppWithPassword(password: string): TestApp {
  const start = async (admin: string) => {
    const t = await startTestApp('sqlite');
    await ensureAdminPassword(t.store.admin, admin);
    return t;
  };
  return useFixture(start, password, (t) => t.close());
}
