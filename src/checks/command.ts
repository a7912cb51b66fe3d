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
import {
  runSandboxed,
  SANDBOX_CHECKOUT,
  type SandboxLimit,
  type SandboxLimits,
  type SandboxSettings,
  sandboxStatus,
} from './sandbox.js';

/** Output kept of a run: its last 64 KiB. */
export const MAX_COMMAND_OUTPUT_BYTES = 64 * 1024;
/** Output the result quotes (and the agent reads): the end is where a failing tool says why. */
const QUOTED_OUTPUT_CHARS = 8 * 1024;

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
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const output = quote(run.output, run.outputBytes > MAX_COMMAND_OUTPUT_BYTES);
    const name = `\`${options.command}\``;
    if (run.timedOut) {
      return failed(
        `${name} did not finish within ${options.timeoutSeconds} s and was stopped, with every process it started.`,
        output,
      );
    }
    if (run.exceeded) return failed(`${name} ${overLimit(run.exceeded, options.sandbox)}`, output);
    if (run.exitCode === 0)
      return { name: COMMAND_CHECK, status: 'passed', message: `${name} passed.`, problems: [] };
    let why = `${name} failed (exit code ${run.exitCode}).`;
    if (run.exitCode === 127)
      why += ` A program it runs was not found in the sandbox, which holds the system's programs (/usr) and the repository's files (at ${SANDBOX_CHECKOUT}).`;
    if (triedNetwork(run.output))
      why += ' It tried to reach the network, which the sandbox blocks: the command must work offline.';
    return failed(why, output);
  } catch (error) {
    options.signal?.throwIfAborted();
    return errorResult(`The check command could not run: ${(error as Error).message}`);
  } finally {
    await rm(checkout, { recursive: true, force: true }).catch(() => {});
  }
}

/** What the command did past a limit, and what became of it. */
function overLimit(limit: SandboxLimit, limits: SandboxLimits): string {
  if (limit === 'processes')
    return `started more than ${limits.processes} processes at once and was stopped, with every process it started.`;
  if (limit === 'memory')
    return `used more than ${bytes(limits.memoryBytes)} of memory (what it wrote to the checkout and /tmp included) and was stopped, with every process it started.`;
  return `wrote more than ${bytes(limits.diskBytes)} (the checkout and /tmp each hold at most that much) and failed.`;
}

/** 2147483648 → "2 GiB", 67108864 → "64 MiB". */
function bytes(count: number): string {
  const gib = count / 1024 ** 3;
  if (Number.isInteger(gib)) return `${gib} GiB`;
  const mib = count / 1024 ** 2;
  return Number.isInteger(mib) ? `${mib} MiB` : `${count} bytes`;
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

function quote(output: string, wasCut: boolean): string {
  const text = output.trimEnd();
  if (!text) return '';
  const cut = wasCut || text.length > QUOTED_OUTPUT_CHARS;
  return `Its output${cut ? ' ends with' : ''}:\n${cut ? `…${text.slice(-QUOTED_OUTPUT_CHARS)}` : text}`;
}

/** What programs print when they cannot resolve a name or reach a host. */
function triedNetwork(output: string): boolean {
  return /EAI_AGAIN|ENOTFOUND|ENETUNREACH|ECONNREFUSED|getaddrinfo|Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known/i.test(
    output,
  );
}
