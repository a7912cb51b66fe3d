/**
 * The project's own tools in an eval task (docs/checks.md and docs/evaluation.md): the task's `setup` makes an
 * environment, its check `command` must pass on the result, and with `agentCommands` the agent has
 * `run_command`. Each runs through the same sandbox, environment and runners the worker uses
 * (src/checks/), so a task measures what a job would do. Where the sandbox is not available, the
 * task fails saying so: nothing runs unsandboxed.
 */
import { join } from 'node:path';
import { runCommandCheck } from '../checks/command.js';
import { prepareEnvironment } from '../checks/environment.js';
import { runAgentCommand, type SandboxSettings, sandboxStatus } from '../checks/index.js';
import type { Redactor } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import { type EvalTask, needsSandbox } from './task.js';

/** How long the setup and every command of a task may take, as a project's `checkTimeoutSeconds`. */
export const EVAL_COMMAND_TIMEOUT_SECONDS = 120;

/** An eval holds no secrets of its own; a task's output is what its commands print. */
const asIs: Redactor = (text) => text;

/** What a task's commands run with. */
export interface TaskCommands {
  /** The environment the setup made, or null. */
  environment: string | null;
  /** For `run_command`, when the task gives the agent commands. */
  runCommand?: (command: string) => Promise<string>;
  /** Runs the task's check command on the result: null when it passed, or why it failed. */
  check(): Promise<string | null>;
}

/** Where a task runs its commands: its own temporary folder and its workspace. */
export interface TaskCommandPlace {
  root: string;
  workspace: Workspace;
  /** A git folder holding `baseCommit`, for the environment's key and checkout. */
  gitDir: string;
  baseCommit: string;
}

/**
 * Readies `task`'s commands. Throws, with a message saying what to do, when the task needs the
 * sandbox and this machine has none, or when its setup fails.
 */
export async function taskCommands(
  task: EvalTask,
  sandbox: SandboxSettings,
  place: TaskCommandPlace,
  signal?: AbortSignal,
): Promise<TaskCommands> {
  if (!needsSandbox(task)) return { environment: null, check: async () => null };
  const status = await sandboxStatus(sandbox);
  if (!status.available)
    throw new Error(
      `this task runs commands (setup, command or agentCommands), and the sandbox is not available here, so they cannot run: ${status.reason}`,
    );
  const scratchDir = join(place.root, 'commands');
  let environment: string | null = null;
  if (task.setup) {
    const outcome = await prepareEnvironment({
      projectId: 'eval',
      command: task.setup,
      environmentsDir: join(place.root, 'environments'),
      gitDir: place.gitDir,
      baseCommit: place.baseCommit,
      timeoutSeconds: EVAL_COMMAND_TIMEOUT_SECONDS,
      sandbox,
      maxBytes: sandbox.diskBytes,
      redact: asIs,
      ...(signal ? { signal } : {}),
    });
    if (outcome.status === 'failed')
      throw new Error(`setup: ${outcome.message}${outcome.output ? `\n${outcome.output}` : ''}`);
    if (outcome.status === 'held') throw new Error('setup: held for review');
    environment = outcome.dir;
  }
  const materialize = (target: string) => place.workspace.materialize(target);
  const common = {
    timeoutSeconds: EVAL_COMMAND_TIMEOUT_SECONDS,
    sandbox,
    environment,
    materialize,
    scratchDir,
    redact: asIs,
    ...(signal ? { signal } : {}),
  };
  const command = task.command;
  return {
    environment,
    ...(task.agentCommands
      ? { runCommand: (line: string) => runAgentCommand({ ...common, command: line }) }
      : {}),
    check: async () => {
      if (!command) return null;
      const result = await runCommandCheck({ ...common, command });
      if (result.status === 'passed') return null;
      const output = result.problems.map((problem) => problem.message).join('\n') || result.message;
      return `command: ${output}`;
    },
  };
}
