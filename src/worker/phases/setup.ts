/**
 * The project's environment, after the workspace is open and before the agent writes anything
 * (DESIGN section 5): its `setupCommand` runs in the sandbox, with network, on the base tree, or
 * the environment cached for the same lockfiles and command is reused. Either way a `setup` event
 * says which; a failed setup fails the job with `setup_failed` and the tail of the output.
 */
import { join } from 'node:path';
import { prepareEnvironment } from '../../checks/index.js';
import { runGit } from '../../git/run.js';
import { SetupFailedError } from '../errors.js';
import type { PreparedRun } from './prepare.js';
import { throwIfAborted } from './state.js';

/** A run whose environment is ready: its folder, laid into every command's checkout, or null. */
export type EquippedRun = PreparedRun & { environment: string | null };

/** Where the environments of every project are kept, one folder per project. */
export const environmentsDir = (dataDir: string) => join(dataDir, 'environments');

export async function setupPhase(run: PreparedRun): Promise<EquippedRun> {
  const { project, workspace, control } = run;
  const command = project.setupCommand;
  if (!command) return Object.assign(run, { environment: null });
  const { config, store } = run.deps;
  // The version the job started from: for a follow-up, where its branch left the base.
  const merged = await runGit(['merge-base', `refs/heads/${run.job.baseRef}`, 'HEAD'], {
    cwd: workspace.dir,
  });
  const outcome = await prepareEnvironment({
    projectId: project.id,
    command,
    environmentsDir: environmentsDir(config.dataDir),
    gitDir: workspace.dir,
    baseCommit: merged.stdout.toString('utf8').trim(),
    timeoutSeconds: project.checkTimeoutSeconds,
    sandbox: config.checks.sandbox,
    maxBytes: config.checks.setupCacheBytes,
    redact: run.redact,
    signal: control.main,
  });
  throwIfAborted(control.main);
  const shown = run.redact(command);
  const data =
    outcome.status === 'reused'
      ? {
          status: outcome.status,
          command: shown,
          key: outcome.key,
          message: 'The environment made earlier for the same lockfiles and setup command was reused.',
          output: '',
          durationMs: 0,
        }
      : {
          status: outcome.status,
          command: shown,
          key: outcome.key,
          message: outcome.status === 'built' ? `The setup command \`${shown}\` passed.` : outcome.message,
          output: outcome.output,
          durationMs: outcome.durationMs,
        };
  await store.queue.appendEvents(run.lease, [{ type: 'setup', data }]);
  control.log.info({ setup: outcome.status, key: outcome.key }, 'project environment ready');
  if (outcome.status === 'failed') throw new SetupFailedError(outcome.message, outcome.output);
  return Object.assign(run, { environment: outcome.dir });
}
