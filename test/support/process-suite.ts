/**
 * What the suites that run the built `agentjobs` processes (a worker, a server) on a job queue of
 * their own share: a temporary folder, a fresh database, a scripted model, and a store on that
 * database for the test process to create and read jobs with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDb } from '../../src/store/db.js';
import { createStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase, type TestDialect } from './db.js';
import { type ScriptedModelOptions, type ScriptedModelServer, startScriptedModel } from './scripted-model.js';
import { useFixture } from './use-fixture.js';
import { tempDir } from './worker.js';

export interface ProcessSuiteOptions {
  /** Names the temporary folder (`agentjobs-<name>-…`). */
  name: string;
  dialect: TestDialect;
  model?: ScriptedModelOptions;
}

export interface ProcessSuite {
  dir: string;
  database: TestDatabase;
  model: ScriptedModelServer;
  /**
   * The environment of a process on this database and model with its data in `dir/data`, and
   * `more` over it.
   */
  env(more?: Record<string, string>): Record<string, string>;
  /** A store on the database, opened at the first call (once a process has migrated it). */
  store(): Store;
  /** Closes the store and the model, drops the database and removes the folder. */
  close(): Promise<void>;
}

export async function startProcessSuite(options: ProcessSuiteOptions): Promise<ProcessSuite> {
  const dir = tempDir(options.name);
  let database: TestDatabase | undefined;
  let model: ScriptedModelServer | undefined;
  let store: Store | undefined;
  const close = async () => {
    await store?.close();
    await model?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const opened = await createTestDatabase(options.dialect);
    database = opened;
    const scripted = await startScriptedModel(options.model);
    model = scripted;
    return {
      dir,
      database: opened,
      model: scripted,
      env: (more = {}) => ({
        AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
        DATABASE_URL: opened.url,
        AGENTJOBS_MODEL: 'openai-compatible:scripted',
        OPENAI_COMPATIBLE_BASE_URL: scripted.url,
        ...more,
      }),
      store: () => {
        store ??= createStore(openDb({ url: opened.url, poolSize: 2 }));
        return store;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `startProcessSuite` for a whole suite: started in its `beforeAll`, closed in its `afterAll`. */
export function useProcessSuite(options: ProcessSuiteOptions): ProcessSuite {
  return useFixture(startProcessSuite, options, (suite) => suite.close());
}
