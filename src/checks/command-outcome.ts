/**
 * How a sandboxed command ended, in words the agent and the user read: the same for the check
 * command, the setup command and the agent's `run_command`.
 */
import type { SandboxLimit, SandboxLimits, SandboxRun } from './sandbox.js';
import { SANDBOX_CHECKOUT } from './sandbox.js';

/** Output quoted in a message (and read by the agent): the end is where a failing tool says why. */
export const QUOTED_OUTPUT_CHARS = 8 * 1024;

/** What the description needs beyond the run. */
export interface DescribeOptions {
  /** How the command is named, e.g. "`vale .`" or "The setup command `npm ci`". */
  name: string;
  timeoutSeconds: number;
  limits: SandboxLimits;
  /** The setting that sizes the disk limit, named where a run wrote past it. */
  diskSetting?: string;
  /** Whether the run had no network (every run but the setup command's). */
  offline: boolean;
  /** Output kept in `output`; default `QUOTED_OUTPUT_CHARS`. */
  quotedChars?: number;
}

/** Whether the run passed (exit code 0 within every limit), why not, and the tail of its output. */
export function describeRun(
  run: SandboxRun,
  options: DescribeOptions,
): { passed: boolean; message: string; output: string } {
  const output = quote(run.output, run.outputBytes > Buffer.byteLength(run.output), options.quotedChars);
  const { name } = options;
  if (run.timedOut)
    return {
      passed: false,
      message: `${name} did not finish within ${options.timeoutSeconds} s and was stopped, with every process it started.`,
      output,
    };
  if (run.exceeded) return { passed: false, message: `${name} ${overLimit(run.exceeded, options)}`, output };
  if (run.exitCode === 0) return { passed: true, message: `${name} passed.`, output };
  let why = `${name} failed (exit code ${run.exitCode}).`;
  if (run.exitCode === 127)
    why += ` A program it runs was not found in the sandbox, which holds the system's programs (/usr) and the repository's files (at ${SANDBOX_CHECKOUT}).`;
  if (options.offline && triedNetwork(run.output))
    why += ' It tried to reach the network, which the sandbox blocks: the command must work offline.';
  return { passed: false, message: why, output };
}

/** What the command did past a limit, and what became of it. */
function overLimit(limit: SandboxLimit, options: DescribeOptions): string {
  const { limits } = options;
  if (limit === 'processes')
    return `started more than ${limits.processes} processes at once and was stopped, with every process it started.`;
  if (limit === 'memory')
    return `used more than ${bytes(limits.memoryBytes)} of memory (what it wrote to the checkout and /tmp included) and was stopped, with every process it started.`;
  const setting = options.diskSetting ? ` (${options.diskSetting})` : '';
  return `wrote more than ${bytes(limits.diskBytes)}${setting} (the checkout and /tmp each hold at most that much) and failed.`;
}

/** 2147483648 → "2 GiB", 67108864 → "64 MiB". */
export function bytes(count: number): string {
  const gib = count / 1024 ** 3;
  if (Number.isInteger(gib)) return `${gib} GiB`;
  const mib = count / 1024 ** 2;
  return Number.isInteger(mib) ? `${mib} MiB` : `${count} bytes`;
}

function quote(output: string, wasCut: boolean, limit = QUOTED_OUTPUT_CHARS): string {
  const text = output.trimEnd();
  if (!text) return '';
  const cut = wasCut || text.length > limit;
  return `Its output${cut ? ' ends with' : ''}:\n${cut ? `…${text.slice(-limit)}` : text}`;
}

/** What programs print when they cannot resolve a name or reach a host. */
function triedNetwork(output: string): boolean {
  return /EAI_AGAIN|ENOTFOUND|ENETUNREACH|ECONNREFUSED|getaddrinfo|Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known/i.test(
    output,
  );
}
