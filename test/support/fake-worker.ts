/**
 * The worker with a fake agent (`fakeAgent`) on a real repository and database, as the worker's
 * pipeline tests use it: a test store, a repository with a project on it, and one started worker.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { WorkerConfig } from '../../src/config/config.js';
import type { Project } from '../../src/domain/project.js';
import { openTestStore, type TestDialect, type TestStore } from './db.js';
import { useFixture } from './use-fixture.js';
import { type fakeAgent, makeRepo, startTestWorker, type TestWorker, tempDir, testConfig } from './worker.js';

export interface FakeWorkerOptions {
  /** Names the temporary folder (`agentjobs-<name>-…`). */
  name: string;
  dialect: TestDialect;
  agent: ReturnType<typeof fakeAgent>;
  /** Worker settings over `testConfig`'s. */
  worker?: Partial<WorkerConfig>;
}

export interface FakeWorker {
  t: TestStore;
  /** The temporary folder; removed by `close`. */
  dir: string;
  /** The repository (`makeRepo`) and its first commit on `main`. */
  repo: string;
  baseSha: string;
  /** The local project "Docs" on `repo`. */
  project: Project;
  /** The worker's data directory. */
  dataDir: string;
  config: ReturnType<typeof testConfig>;
  running: TestWorker;
  /** Stops the worker, closes the store and removes the folder. */
  close(): Promise<void>;
}

export async function startFakeWorker(options: FakeWorkerOptions): Promise<FakeWorker> {
  const t = await openTestStore(options.dialect);
  const dir = tempDir(options.name);
  let running: TestWorker | undefined;
  const close = async () => {
    await running?.worker.stop({ graceMs: 0 });
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { repo, baseSha } = makeRepo(dir);
    const project = await t.store.projects.create({ name: 'Docs', repository: repo });
    const dataDir = path.join(dir, 'data');
    const config = testConfig(dataDir, options.worker);
    running = await startTestWorker({ config, store: t.store, agent: options.agent });
    return { t, dir, repo, baseSha, project, dataDir, config, running, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `startFakeWorker` for a whole suite: started in its `beforeAll`, closed in its `afterAll`. */
export function useFakeWorker(options: FakeWorkerOptions): FakeWorker {
  return useFixture(startFakeWorker, options, (started) => started.close());
}
