import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageModel, ModelMessage } from 'ai';
import { createWorker, type Worker } from '../../src/background/worker.js';
import { type Config, loadConfig, type WorkerConfig } from '../../src/config/config.js';
import type { Job } from '../../src/domain/job.js';
import { createLogger } from '../../src/log.js';
import { AgentError, type AgentResult, type RunAgentOptions } from '../../src/run/agent-port.js';
import { createServerCodeHosts } from '../../src/server.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';
import { memoryLog } from './app.js';
import { useFixture } from './use-fixture.js';

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, ...args], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
    .toString()
    .trim();

export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-${prefix}-`));

/** A working copy with `main` checked out: README.md and docs/guide.md. */
export function makeRepo(dir: string): { repo: string; baseSha: string } {
  const repo = path.join(dir, 'upstream');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  fs.writeFileSync(path.join(repo, 'README.md'), '# Docs\n\nWelcome.\n');
  fs.mkdirSync(path.join(repo, 'docs'));
  fs.writeFileSync(path.join(repo, 'docs', 'guide.md'), '# Guide\n\nStep one.\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=Upstream', '-c', 'user.email=up@example.com', 'commit', '-q', '-m', 'init');
  return { repo, baseSha: git(repo, 'rev-parse', 'main') };
}

/** True when `ref` names a commit in `repo`. */
export function hasRef(repo: string, ref: string): boolean {
  try {
    git(repo, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * A config for tests: its own data directory, quick leases and heartbeats, a slow fallback poll;
 * `env` is more environment, over the defaults.
 */
export function testConfig(
  dataDir: string,
  worker: Partial<WorkerConfig> = {},
  env: Record<string, string> = {},
): Config {
  const base = loadConfig({
    AGENTJOBS_DATA_DIR: dataDir,
    AGENTJOBS_PUBLIC_URL: 'http://agentjobs.test',
    LOG_LEVEL: 'debug',
    ...env,
  });
  return {
    ...base,
    worker: {
      ...base.worker,
      leaseMs: 5000,
      heartbeatMs: 100,
      pollMs: 60_000,
      shutdownGraceMs: 1000,
      ...worker,
    },
  };
}

export interface AgentCall {
  branch: string;
  prompts: string[];
  history: ModelMessage[];
  at: number;
}

export type Script = (options: RunAgentOptions, call: AgentCall) => Promise<Partial<AgentResult> | undefined>;

/**
 * An agent that runs `script` (which may edit `options.workspace`) and returns a plausible result:
 * the conversation extended by the prompts and a reply, and the changed paths.
 */
export function fakeAgent(initial: Script = async () => undefined) {
  let script = initial;
  const calls: AgentCall[] = [];
  return {
    calls,
    setScript(next: Script) {
      script = next;
    },
    /** Waits until the agent has been called `count` times. */
    called(count = 1) {
      return waitFor(
        async () => calls.length,
        (n) => n === count,
      );
    },
    runAgent: async (options: RunAgentOptions): Promise<AgentResult> => {
      const call: AgentCall = {
        branch: options.workspace.branch,
        prompts: options.prompts,
        history: options.history,
        at: Date.now(),
      };
      calls.push(call);
      const result = (await script(options, call)) ?? {};
      const summary = result.summary ?? `Done: ${options.prompts.join(' / ')}`;
      return {
        summary,
        title: result.title ?? null,
        messages: [
          ...options.history,
          ...options.prompts.map((content): ModelMessage => ({ role: 'user', content })),
          { role: 'assistant', content: summary },
        ],
        usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, steps: 1, costUsd: null },
        filesChanged: options.workspace.changedPaths(),
        ...result,
      };
    },
  };
}

/** Resolves any model but `none`, which is unavailable. */
export function fakeResolveModel(modelId: string | null): LanguageModel {
  if (modelId === 'none') throw new AgentError('model_unavailable', 'No model is configured.');
  return 'fake-model';
}

/** Waits until the signal aborts, then fails as the real agent does. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new AgentError('aborted', 'The run was stopped.'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, everyMs = 10 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await sleep(everyMs);
  }
}

/** Waits until the job is no longer active in `store` (a worker ended it), and returns it. */
export async function settledJob(
  store: Store,
  projectId: string,
  jobId: string,
  timeoutMs = 60_000,
): Promise<Job> {
  const job = await waitFor(
    () => store.jobs.get(projectId, jobId),
    (current) => current?.status !== 'active',
    { timeoutMs, everyMs: 50 },
  );
  if (!job) throw new Error(`job ${jobId} is gone`);
  return job;
}

export interface TestWorker {
  worker: Worker;
  logs: string[];
}

export async function startTestWorker(options: {
  config: Config;
  store: Store;
  agent: ReturnType<typeof fakeAgent>;
  id?: string;
  start?: boolean;
}): Promise<TestWorker> {
  const logs: string[] = [];
  const worker = createWorker({
    config: options.config,
    store: options.store,
    logger: createLogger('debug', memoryLog(logs)),
    hosts: createServerCodeHosts(options.config, options.store, { secrets: lazySecretBox(options.config) }),
    runAgent: options.agent.runAgent,
    resolveModel: fakeResolveModel,
    ...(options.id ? { id: options.id } : {}),
  });
  if (options.start !== false) await worker.start();
  return { worker, logs };
}

/** A repository `makeRepo` made in a temporary folder, and where it is served from. */
export interface TestRepository {
  /** The temporary folder; removed after the suite. */
  dir: string;
  /** The working copy, `main` checked out. */
  repo: string;
  /** A bare clone of it (`docs.git`), when asked for. */
  bare: string;
}

/**
 * A repository (`makeRepo`) in a folder of its own for the whole suite, with a bare clone of it
 * when `bare`; the folder is removed after the suite. See `useFixture`.
 */
export function useRepository(options: { name: string; bare?: boolean }): TestRepository {
  return useFixture(
    async ({ name, bare }: { name: string; bare?: boolean }) => {
      const dir = tempDir(name);
      const { repo } = makeRepo(dir);
      const clone = path.join(dir, 'docs.git');
      if (bare) git(dir, 'clone', '-q', '--bare', repo, clone);
      return { dir, repo, bare: bare ? clone : '' };
    },
    options,
    async ({ dir }) => fs.rmSync(dir, { recursive: true, force: true }),
  );
}

/**
 * Commits `files` (path → content) on `branch`, made from `main`, in a clone of the bare
 * repository of `repository` (`useRepository` with `bare`), and pushes it there.
 */
export function pushCommit(
  repository: TestRepository,
  branch: string,
  files: Record<string, string>,
  message: string,
): void {
  const work = fs.mkdtempSync(path.join(repository.dir, 'work-'));
  git(repository.dir, 'clone', '-q', '--branch', 'main', repository.bare, work);
  git(work, 'checkout', '-q', '-B', branch);
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(work, file), content);
  git(work, 'add', '-A');
  git(work, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', message);
  git(work, 'push', '-q', 'origin', branch);
  fs.rmSync(work, { recursive: true, force: true });
}
