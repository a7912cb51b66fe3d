/**
 * Runs eval tasks with the real agent and workspace, in process, without a server (docs/evaluation.md):
 * each task's site is copied (`copySite`) and made a git repository with one commit, the agent
 * works on a job branch of its mirror as it would for a job (the prompt, then each follow-up on the
 * same conversation and branch), the result is checked out into a folder and the task's
 * expectations are checked there. A task's context repositories are made the same way, each a bare
 * repository with one commit that the agent reads by name (`contextRepositories`) and never changes.
 * Tasks run side by side, `concurrency` at a time. A task that fails to run (the model refused, a
 * limit) is a failed task with that reason, not a failed eval.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModel, ModelMessage } from 'ai';
import { AgentError, type AgentLimits, type ContextSource, runAgent } from '../agent/loop.js';
import type { ModelPrice } from '../agent/prices.js';
import type { SandboxSettings } from '../checks/index.js';
import { ensureMirror } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { Workspace } from '../git/workspace.js';
import { changesOf } from './checks.js';
import { taskCommands } from './commands.js';
import { check } from './expectations.js';
import { copySite } from './site.js';
import type { EvalContext, EvalTask } from './task.js';

/** What every task of one eval runs with. */
export interface EvalOptions {
  model: LanguageModel;
  /** The model's id, for the report. */
  modelId: string;
  price: ModelPrice | null;
  contextTokens: number;
  limits: AgentLimits;
  concurrency: number;
  stream?: boolean;
  /** How long a task waits out a model that keeps failing (`AGENTJOBS_MODEL_OUTAGE_SECONDS`). */
  modelOutageWaitMs?: number;
  /** The sandbox of tasks that run commands (the worker's `AGENTJOBS_CHECK_*` settings). */
  sandbox?: SandboxSettings;
  /** Called as each task ends, for progress on a terminal. */
  onTask?: (result: TaskOutcome) => void;
}

/** One task's outcome, as `--json` reports it. */
export interface TaskOutcome {
  name: string;
  passed: boolean;
  /** Every expectation that failed (or why the run did), in the task's order. */
  failures: string[];
  steps: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number | null;
  seconds: number;
}

/** The whole eval, as `--json` prints it. */
export interface EvalReport {
  model: string;
  total: number;
  passed: number;
  passRate: number;
  /** Wall-clock time of the whole eval: tasks run side by side, so less than the tasks' sum. */
  seconds: number;
  tasks: TaskOutcome[];
}

/** The sandbox when none is given: the worker's defaults. */
const DEFAULT_SANDBOX: SandboxSettings = {
  processes: 256,
  memoryBytes: 2048 * 1024 * 1024,
  diskBytes: 1024 * 1024 * 1024,
  unlimited: false,
};

const IDENTITY = {
  GIT_AUTHOR_NAME: 'eval',
  GIT_AUTHOR_EMAIL: 'eval@localhost',
  GIT_COMMITTER_NAME: 'eval',
  GIT_COMMITTER_EMAIL: 'eval@localhost',
};

/** Runs `tasks`, `options.concurrency` at a time; the report keeps the tasks' order. */
export async function runEval(tasks: EvalTask[], options: EvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const outcomes: TaskOutcome[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      const outcome = await runTask(tasks[index] as EvalTask, options);
      outcomes[index] = outcome;
      options.onTask?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, tasks.length)) }, lane));
  const passed = outcomes.filter((outcome) => outcome.passed).length;
  return {
    model: options.modelId,
    total: outcomes.length,
    passed,
    passRate: outcomes.length ? Math.round((passed / outcomes.length) * 1000) / 1000 : 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    tasks: outcomes,
  };
}

/** Runs one task in a temporary folder of its own, removed afterwards. */
export async function runTask(task: EvalTask, options: EvalOptions): Promise<TaskOutcome> {
  const started = Date.now();
  const root = await mkdtemp(join(tmpdir(), `agentjobs-eval-${task.name}-`));
  const usage = {
    steps: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: options.price ? 0 : (null as number | null),
  };
  const failures: string[] = [];
  let workspace: Workspace | null = null;
  try {
    const upstream = join(root, 'site');
    // Without the site's own .git: git would run what its config and hooks name.
    await copySite(task.siteDir, upstream);
    const base = await commitFolder(upstream, 'site');
    const contextRepositories = await makeContext(task.context, join(root, 'context'));
    const mirrorPath = await ensureMirror({
      mirrorsDir: join(root, 'mirrors'),
      projectId: 'eval',
      repository: upstream,
      env: {},
    });
    workspace = await Workspace.create({
      mirrorPath,
      dir: join(root, 'work'),
      branch: 'agentjobs/eval',
      baseRef: 'main',
    });
    const commands = await taskCommands(task, options.sandbox ?? DEFAULT_SANDBOX, {
      root,
      workspace,
      gitDir: workspace.dir,
      baseCommit: base,
    });

    let history: ModelMessage[] = [];
    for (const prompt of [task.prompt, ...task.followUps]) {
      const result = await runAgent({
        model: options.model,
        workspace,
        history,
        prompts: [prompt],
        takePendingPrompts: async () => [],
        limits: options.limits,
        signal: AbortSignal.timeout(options.limits.maxWallMs + 60_000),
        onEvent: async () => {},
        stream: options.stream ?? true,
        ...(options.modelOutageWaitMs === undefined ? {} : { modelOutageWaitMs: options.modelOutageWaitMs }),
        contextTokens: options.contextTokens,
        price: options.price,
        contextRepositories,
        ...(commands.runCommand ? { runCommand: commands.runCommand } : {}),
      }).catch((error: unknown) => {
        if (!(error instanceof AgentError)) throw error;
        if (error.partial) add(usage, error.partial.usage);
        failures.push(`run: ${error.code}: ${error.message.split('\n')[0]}`);
        return null;
      });
      if (!result) break;
      add(usage, result.usage);
      history = result.messages;
      // Each prompt's work is committed, as a job's run is before the follow-up.
      await workspace.commit({ message: 'eval run', authorName: 'eval', authorEmail: 'eval@localhost' });
    }

    if (failures.length === 0) {
      const head = workspace.headCommit;
      const changes = changesOf(
        (await git(mirrorPath, 'diff', '--name-status', '--no-renames', base, head)).stdout.toString(),
      );
      const resultDir = join(root, 'result');
      await git(mirrorPath, 'worktree', 'add', '--quiet', '--detach', resultDir, head);
      for (const expectation of task.expect) {
        const failure = await check(expectation, { dir: resultDir, changes });
        if (failure) failures.push(failure);
      }
      const failed = await commands.check();
      if (failed) failures.push(failed);
    }
  } catch (error) {
    failures.push(`run: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  } finally {
    await workspace?.close().catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
  return {
    name: task.name,
    passed: failures.length === 0,
    failures,
    ...usage,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

const git = (cwd: string, ...args: string[]) => runGit(args, { cwd, env: IDENTITY });

/** Makes the folder `dir` a repository with one commit on `main` of all its files; returns the commit. */
async function commitFolder(dir: string, message: string): Promise<string> {
  await git(dir, 'init', '--quiet', '--initial-branch=main');
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', message);
  return (await git(dir, 'rev-parse', 'HEAD')).stdout.toString().trim();
}

/** Each context folder copied into `dir`, committed, and cloned bare, as a mirror would hold it. */
async function makeContext(context: EvalContext[], dir: string): Promise<ContextSource[]> {
  const sources: ContextSource[] = [];
  for (const { name, siteDir } of context) {
    const files = join(dir, name);
    await copySite(siteDir, files);
    const commit = await commitFolder(files, name);
    const gitDir = join(dir, `${name}.git`);
    await git(dir, 'clone', '--quiet', '--bare', files, gitDir);
    sources.push({ name, ref: 'main', commit, gitDir });
  }
  return sources;
}

function add(
  total: {
    steps: number;
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    costUsd: number | null;
  },
  usage: {
    steps: number;
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    costUsd: number | null;
  },
) {
  total.steps += usage.steps;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cachedInputTokens += usage.cachedInputTokens;
  total.costUsd =
    total.costUsd === null || usage.costUsd === null
      ? null
      : Math.round((total.costUsd + usage.costUsd) * 1e6) / 1e6;
}
