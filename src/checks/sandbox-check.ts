/**
 * The "sandbox" line of a project's access check, as `agentjobs project check` prints it and the
 * dashboard's Check access shows it: whether the project's commands can run in the sandbox here.
 */
import { type SandboxSettings, sandboxStatus } from './sandbox.js';

/** Whether a project's check command can run here: the sandbox it needs, and within what limits. */
export async function sandboxCheck(settings: SandboxSettings) {
  const status = await sandboxStatus(settings);
  const limits = `${settings.processes} processes, ${settings.memoryBytes / 1024 ** 2} MiB of memory, ${settings.diskBytes / 1024 ** 2} MiB written`;
  return {
    name: 'sandbox',
    ok: status.available,
    detail: !status.available
      ? `The check command cannot run: ${status.reason}`
      : status.unsafe
        ? `The check command can run in the sandbox (bubblewrap) on this machine. ${status.reason}`
        : `The check command can run in the sandbox (bubblewrap) on this machine, within ${limits}.`,
  };
}

/** Whether a project runs anything in the sandbox, so that its access check includes the sandbox's line. */
export const usesSandbox = (project: {
  checkCommand: string | null;
  setupCommand: string | null;
  agentCommands: boolean;
}) => Boolean(project.checkCommand || project.setupCommand || project.agentCommands);
