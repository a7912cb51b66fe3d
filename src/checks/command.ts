/**
 * A project's own check command (`checkCommand`, e.g. `npx mint broken-links`, `vale .`): run on a
 * real checkout of the job's tree, made for it and removed after, inside the sandbox (sandbox.ts).
 * Exit code 0 passes; anything else fails, and the tail of its output, redacted, is what the agent
 * reads. A sandbox that cannot start is an `error` result: the command never runs unsandboxed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type CheckResult, COMMAND_CHECK } from '../domain/checks.js';
import { type Redactor, redactValue } from '../domain/redact.js';
import { describeRun } from './command-outcome.js';
import { runSandboxed, type SandboxSettings, sandboxStatus } from './sandbox.js';

/** Output kept of a run: its last 64 KiB. */
export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;

/** What running a project's command needs. */
export interface CommandCheckOptions {
  command: string;
  timeoutSeconds: number;
  /** The sandbox's limits, and whether it may run where they cannot be enforced. */
  sandbox: SandboxSettings;
  /** Writes the job's tree into the folder it is given (`Workspace.materialize`). */
  materialize(target: string): Promise<void>;
  /** Where the checkout is made (a folder of the data directory); removed after the run. */
  scratchDir: string;
  /** The project's environment (environment.ts), laid read-only into the checkout; null for none. */
  environment?: string | null;
  redact: Redactor;
  signal?: AbortSignal;
}

/** Runs the command; everything in the result, the command line included, is redacted. */
export async function runCommandCheck(options: CommandCheckOptions): Promise<CheckResult> {
  return redactValue(await runCommand(options), options.redact);
}

async function runCommand(options: CommandCheckOptions): Promise<CheckResult> {
  const status = await sandboxStatus(options.sandbox);
  if (!status.available)
    return errorResult(
      `The check command did not run: the sandbox is not available on this worker. ${status.reason}`,
    );
  await mkdir(options.scratchDir, { recursive: true });
  const checkout = await mkdtemp(join(options.scratchDir, 'checkout-'));
  try {
    await options.materialize(checkout);
    const run = await runSandboxed({
      command: options.command,
      dir: checkout,
      timeoutMs: options.timeoutSeconds * 1000,
      limits: options.sandbox,
      unlimited: options.sandbox.unlimited,
      maxOutputBytes: MAX_COMMAND_OUTPUT_BYTES,
      environment: options.environment ?? null,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const described = describeRun(run, {
      name: `\`${options.command}\``,
      timeoutSeconds: options.timeoutSeconds,
      limits: options.sandbox,
      offline: true,
    });
    if (described.passed)
      return { name: COMMAND_CHECK, status: 'passed', message: described.message, problems: [] };
    return failed(described.message, described.output);
  } catch (error) {
    options.signal?.throwIfAborted();
    return errorResult(`The check command could not run: ${(error as Error).message}`);
  } finally {
    await rm(checkout, { recursive: true, force: true }).catch(() => {});
  }
}

function failed(message: string, output: string): CheckResult {
  return {
    name: COMMAND_CHECK,
    status: 'failed',
    message,
    problems: [{ path: '.', line: null, message: output ? `${message}\n${output}` : message }],
  };
}

function errorResult(message: string): CheckResult {
  return { name: COMMAND_CHECK, status: 'error', message, problems: [] };
}
