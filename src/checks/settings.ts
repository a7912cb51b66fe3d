/**
 * A project's check settings as an admin gives them (`agentjobs project create|update`, the
 * dashboard's project settings), checked in one place so both accept and refuse the same things.
 * A command (the check command, the setup command, the agent's `run_command`) is refused where the
 * sandbox cannot run it with every limit enforced: it would never run unsandboxed; the setup
 * command also where its network cannot be kept away from this machine (slirp4netns missing).
 */
import {
  CHECK_FAILURE_POLICIES,
  type CheckFailurePolicy,
  MAX_CHECK_TIMEOUT_SECONDS,
} from '../domain/checks.js';
import { type SandboxSettings, sandboxStatus } from './sandbox.js';
import { networkProblem } from './sandbox-network.js';

/** Longest command line accepted. */
export const MAX_CHECK_COMMAND_CHARS = 2000;

/** A check setting that cannot be used; `field` names it, the message says why. */
export class CheckSettingsError extends Error {
  override name = 'CheckSettingsError';
  constructor(
    readonly field:
      | 'checkCommand'
      | 'checkTimeoutSeconds'
      | 'onCheckFailure'
      | 'setupCommand'
      | 'agentCommands',
    message: string,
  ) {
    super(message);
  }
}

/** The settings as given; absent fields are left as they are. */
export interface CheckSettingsInput {
  /** '' or null removes the command. */
  checkCommand?: string | null;
  checkTimeoutSeconds?: number | null;
  onCheckFailure?: string;
  /** '' or null removes the command. */
  setupCommand?: string | null;
  agentCommands?: boolean;
}

/**
 * The settings to store, or a `CheckSettingsError`. `sandbox` is the deployment's: whether it lets
 * commands run where a limit of the sandbox cannot be enforced.
 */
export async function parseCheckSettings(
  input: CheckSettingsInput,
  sandbox: Pick<SandboxSettings, 'unlimited'>,
): Promise<{
  checkCommand?: string | null;
  checkTimeoutSeconds?: number | null;
  onCheckFailure?: CheckFailurePolicy;
  setupCommand?: string | null;
  agentCommands?: boolean;
}> {
  const out: Awaited<ReturnType<typeof parseCheckSettings>> = {};
  if (input.onCheckFailure !== undefined) {
    if (!CHECK_FAILURE_POLICIES.includes(input.onCheckFailure as CheckFailurePolicy))
      throw new CheckSettingsError('onCheckFailure', `must be one of ${CHECK_FAILURE_POLICIES.join(', ')}`);
    out.onCheckFailure = input.onCheckFailure as CheckFailurePolicy;
  }
  if (input.checkTimeoutSeconds !== undefined) {
    const seconds = input.checkTimeoutSeconds;
    if (
      seconds !== null &&
      (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_CHECK_TIMEOUT_SECONDS)
    )
      throw new CheckSettingsError(
        'checkTimeoutSeconds',
        `must be a whole number of seconds from 1 to ${MAX_CHECK_TIMEOUT_SECONDS}`,
      );
    out.checkTimeoutSeconds = seconds;
  }
  if (input.checkCommand !== undefined)
    out.checkCommand = await parseCommand('checkCommand', input.checkCommand, sandbox);
  if (input.setupCommand !== undefined)
    out.setupCommand = await parseCommand('setupCommand', input.setupCommand, sandbox);
  if (input.agentCommands !== undefined) {
    if (input.agentCommands) await requireSandbox('agentCommands', 'cannot be turned on', sandbox);
    out.agentCommands = input.agentCommands;
  }
  return out;
}

/** A command line to store: null for none; refused where the sandbox cannot run it. */
async function parseCommand(
  field: 'checkCommand' | 'setupCommand',
  given: string | null,
  sandbox: Pick<SandboxSettings, 'unlimited'>,
): Promise<string | null> {
  const command = given?.trim() ?? '';
  if (command === '') return null;
  if (command.length > MAX_CHECK_COMMAND_CHARS || /[\0\r\n]/.test(command))
    throw new CheckSettingsError(field, `must be one line of at most ${MAX_CHECK_COMMAND_CHARS} characters`);
  await requireSandbox(field, 'cannot be set', sandbox);
  // The setup's network goes only through user-mode networking: never the host's own.
  const noNetwork = field === 'setupCommand' ? networkProblem() : null;
  if (noNetwork) throw new CheckSettingsError(field, `cannot be set: ${noNetwork}`);
  return command;
}

/** Fail closed: a command is never enabled where a limit of the sandbox cannot be enforced. */
async function requireSandbox(
  field: CheckSettingsError['field'],
  what: string,
  sandbox: Pick<SandboxSettings, 'unlimited'>,
): Promise<void> {
  const status = await sandboxStatus(sandbox);
  if (!status.available)
    throw new CheckSettingsError(
      field,
      `${what}: commands run only in the sandbox, and it is not available here. ${status.reason}`,
    );
}
