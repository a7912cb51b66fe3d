/**
 * The agent's `run_command` (docs/architecture.md#the-runs-phases): a command line the model wrote, run in the offline
 * sandbox on a fresh checkout of the work so far with the project's environment laid in, like the
 * check command. The model reads the exit code and the last 16 KiB of the output, redacted.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redactor } from '../domain/redact.js';
import { describeRun } from './command-outcome.js';
import { runSandboxed, type SandboxSettings, sandboxStatus } from './sandbox.js';

/** Output the model reads: the last 16 KiB. */
export const MAX_AGENT_COMMAND_OUTPUT_BYTES = 16 * 1024;

/** What a run of the agent's command needs. */
export interface AgentCommandOptions {
  command: string;
  timeoutSeconds: number;
  sandbox: SandboxSettings;
  /** The project's environment, laid read-only into the checkout; null for none. */
  environment: string | null;
  /** Writes the job's tree into the folder it is given (`Workspace.materialize`). */
  materialize(target: string): Promise<void>;
  /** Where the checkout is made; removed after the run. */
  scratchDir: string;
  redact: Redactor;
  signal?: AbortSignal;
}

/** Runs the command; returns what the model reads, its first line the exit code. Redacted. */
export async function runAgentCommand(options: AgentCommandOptions): Promise<string> {
  return options.redact(await run(options));
}

async function run(options: AgentCommandOptions): Promise<string> {
  const status = await sandboxStatus(options.sandbox);
  if (!status.available) return `The command did not run: the sandbox is not available. ${status.reason}`;
  await mkdir(options.scratchDir, { recursive: true });
  const checkout = await mkdtemp(join(options.scratchDir, 'command-'));
  try {
    await options.materialize(checkout);
    const result = await runSandboxed({
      command: options.command,
      dir: checkout,
      timeoutMs: options.timeoutSeconds * 1000,
      limits: options.sandbox,
      unlimited: options.sandbox.unlimited,
      maxOutputBytes: MAX_AGENT_COMMAND_OUTPUT_BYTES,
      environment: options.environment,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const described = describeRun(result, {
      name: 'The command',
      timeoutSeconds: options.timeoutSeconds,
      limits: options.sandbox,
      offline: true,
      quotedChars: MAX_AGENT_COMMAND_OUTPUT_BYTES,
    });
    const first =
      result.exitCode === null
        ? `Exit code: none. ${described.message}`
        : `Exit code: ${result.exitCode}.${described.passed ? '' : ` ${described.message}`}`;
    return `${first}\n${described.output || '(no output)'}`;
  } finally {
    await rm(checkout, { recursive: true, force: true }).catch(() => {});
  }
}
