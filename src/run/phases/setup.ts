/**
 * The project's environment, after the workspace is open and before the agent writes anything
 * (docs/security.md, "Setup and the environment"). The setup command runs only on what the
 * project's owners committed to its base branch: whatever the job's `baseRef`, the environment is
 * the one of the base branch's newest commit, cached or made now, with network, in the sandbox. A
 * job on another ref gets that environment too, so an unmerged branch (one a job wrote, say) never
 * runs its setup script, with network or without, and never makes an environment another job uses.
 * In push mode, a commit of the service's that changed a setup input holds a setup that would have
 * to run until a person accepts it (`setup_needs_review`). Either way a `setup` event says what
 * happened; a failed setup fails the job with `setup_failed` and the tail of the output.
 */
import { join } from 'node:path';
import { prepareEnvironment } from '../../checks/index.js';
import { runGit } from '../../git/run.js';
import { SetupFailedError, SetupNeedsReviewError } from '../errors.js';
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
  // The base branch as fetched for this run, never the job's own ref.
  const base = await runGit(['rev-parse', '--verify', `refs/heads/${project.baseBranch}^{commit}`], {
    cwd: workspace.dir,
  });
  const review = project.setupReview;
  const outcome = await prepareEnvironment({
    projectId: project.id,
    command,
    environmentsDir: environmentsDir(config.dataDir),
    gitDir: workspace.dir,
    baseCommit: base.stdout.toString('utf8').trim(),
    mayBuild: review === null,
    timeoutSeconds: project.checkTimeoutSeconds,
    sandbox: config.checks.sandbox,
    maxBytes: config.checks.setupCacheBytes,
    redact: run.redact,
    signal: control.main,
  });
  throwIfAborted(control.main);
  const shown = run.redact(command);
  const held = outcome.status === 'held' ? new SetupNeedsReviewError(project.id, review?.files ?? []) : null;
  const data =
    outcome.status === 'reused' || outcome.status === 'held'
      ? {
          status: outcome.status,
          command: shown,
          key: outcome.key,
          message:
            held?.message ??
            'The environment made earlier from the base branch, for the same setup inputs and command, was reused.',
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
  if (outcome.status === 'held') throw held;
  if (outcome.status === 'failed') throw new SetupFailedError(outcome.message, outcome.output);
  return Object.assign(run, { environment: outcome.dir });
}
