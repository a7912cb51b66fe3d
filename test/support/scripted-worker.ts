/**
 * A real worker (the real agent, `real-agent.ts`) on a real store, with a project on a local
 * repository and the scripted model over HTTP: what the worker tests that drive the real agent
 * share. Apart from `real-agent.ts`, which a child process also loads outside the test runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from '../../src/background/worker.js';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { openTestStore, type TestDialect, type TestStore } from './db.js';
import { realAgentConfig, startRealWorker } from './real-agent.js';
import { type ScriptedModelServer, startScriptedModel } from './scripted-model.js';
import { useFixture } from './use-fixture.js';
import { makeRepo, settledJob, tempDir } from './worker.js';

export interface ScriptedWorker {
  t: TestStore;
  /** The temporary folder of the repository and the data; removed by `close`. */
  dir: string;
  repo: string;
  project: Project;
  model: ScriptedModelServer;
  worker: Worker;
  /** Makes a job of the project on the repository's `main` (by default on the scripted model) and waits for its run to end. */
  runJob(fields: { prompt: string; model?: string }): Promise<Job>;
  /** Waits for the run of the project's job `jobId` to end (a follow-up's, say); returns the job. */
  settled(jobId: string): Promise<Job>;
  /** Stops the worker and the model, closes the store, removes the folder. */
  close(): Promise<void>;
}

/** Settings of `scriptedWorker`. */
export interface ScriptedWorkerOptions {
  /** Names the temporary folder. */
  name: string;
  dialect?: TestDialect;
  env?: Record<string, string>;
  repo?: (dir: string) => string;
  /** The tokens the model reports for every answer (`startScriptedModel`'s `usage`). */
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/**
 * Opens a `dialect` store (default SQLite), makes a repository (`makeRepo`, or `repo(dir)`) and its
 * project, starts the scripted model (reporting `usage` for every answer) and a worker with the
 * real agent on it (`env` over `realAgentConfig`'s). `close` it in `afterAll`.
 */
export async function scriptedWorker(options: ScriptedWorkerOptions): Promise<ScriptedWorker> {
  const dir = tempDir(options.name);
  const parts: Partial<ScriptedWorker> = {};
  const close = async () => {
    await parts.worker?.stop({ graceMs: 0 });
    await parts.model?.close();
    await parts.t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const t = await openTestStore(options.dialect ?? 'sqlite');
    parts.t = t;
    const repo = options.repo ? options.repo(dir) : makeRepo(dir).repo;
    const project = await t.store.projects.create({ name: 'Docs', repository: repo });
    const model = await startScriptedModel(options.usage ? { usage: options.usage } : {});
    parts.model = model;
    const config = realAgentConfig(path.join(dir, 'data'), model.url, { env: options.env ?? {} });
    const { worker } = await startRealWorker(config, t.store, options.name);
    parts.worker = worker;
    const settled = async (jobId: string) => await settledJob(t.store, project.id, jobId);
    const runJob = async (fields: { prompt: string; model?: string }) => {
      const created = await t.store.jobs.create({
        projectId: project.id,
        prompt: fields.prompt,
        model: fields.model ?? 'openai-compatible:scripted',
        baseRef: 'main',
        repository: repo,
        draft: false,
      });
      return settled(created.id);
    };
    return { t, dir, repo, project, model, worker, runJob, settled, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `scriptedWorker` for a whole suite: started in its `beforeAll`, closed in its `afterAll`. */
export function useScriptedWorker(
  options: ScriptedWorkerOptions | (() => ScriptedWorkerOptions),
): ScriptedWorker {
  return useFixture(scriptedWorker, options, (started) => started.close());
}
