/**
 * `agentjobs pr list | merge | close`: a local project's pull requests from the command line, as
 * the dashboard has them (docs/code-hosts.md). Works on the local database and the repository, like
 * the other admin commands; a merge is the dashboard's merge.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import type { PullRequestRef } from '../../operations/merges.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';
import { cliErrorOf } from './operation-error.js';

interface Target extends OutputOptions {
  project?: string;
  job?: string;
}

function projectIdOf(options: Target): string {
  const project = options.project ?? process.env.AGENTJOBS_PROJECT;
  if (!project) throw new CliError('Pass --project ID (or set AGENTJOBS_PROJECT).');
  return project;
}

/** The pull request a command names: its NUMBER, or `--job`; which one exists is the operation's question. */
function refOf(options: Target, number: string | undefined): PullRequestRef {
  if ((number === undefined) === (options.job === undefined))
    throw new CliError('Name the pull request: its NUMBER, or --job JOB_ID.');
  if (options.job !== undefined) return { jobId: options.job };
  if (!/^\d{1,9}$/.test(number ?? '')) throw new CliError(`"${number}" is not a pull request number.`);
  return { number: Number(number) };
}

/** The merge operations, loaded with the git and host code only for the commands that use them. */
const merges = () => import('../../operations/merges.js');

/** A refusal of the merge operations as the command's error; a merge that did not happen is `not_merged`. */
async function run<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    const { MergeRefused } = await merges();
    if (error instanceof MergeRefused && error.refusal !== 'not_open')
      throw new CliError(error.message, 'not_merged');
    throw cliErrorOf(error, {}) ?? error;
  }
}

export function registerPullRequestCommands(program: Command) {
  const pr = program
    .command('pr')
    .description("A local project's pull requests (works on the local database and repository)");

  pr.command('list')
    .description('List the pull requests, newest first')
    .option('--project <id>', 'the project (or AGENTJOBS_PROJECT)')
    .option('--json', 'machine-readable output')
    .action(async (options: Target) => {
      const projectId = projectIdOf(options);
      const { listPullRequests } = await merges();
      const { pullRequests: pulls } = await withStore((store) =>
        run(() => listPullRequests(store, projectId, { limit: 100 })),
      );
      print(options, { pullRequests: pulls }, () =>
        pulls.length === 0
          ? 'No pull requests yet.'
          : table([
              ['#', 'STATE', 'BRANCH', 'TITLE'],
              ...pulls.map((pull) => [String(pull.number), pull.state, pull.headBranch, pull.title]),
            ]),
      );
    });

  pr.command('merge')
    .description('Merge a pull request into its base branch, as the dashboard’s Merge button does')
    .argument('[number]', 'the pull request number (or --job)')
    .option('--project <id>', 'the project (or AGENTJOBS_PROJECT)')
    .option('--job <jobId>', 'the pull request of this job')
    .option('--json', 'machine-readable output')
    .action(async (number: string | undefined, options: Target) => {
      const config = loadConfig();
      const ref = refOf(options, number);
      const projectId = projectIdOf(options);
      const author = { name: config.worker.gitAuthorName, email: config.worker.gitAuthorEmail };
      const { mergePullRequest } = await merges();
      const result = await withStore(
        (store) => run(() => mergePullRequest({ store, author }, projectId, ref)),
        config,
      );
      const { pullRequest: merged } = result;
      print(options, result, () =>
        [
          `Merged #${merged.number} (${merged.headBranch}) into ${merged.baseBranch}${result.fastForward ? ' by fast-forward' : ''}: ${merged.baseBranch} is now ${result.sha.slice(0, 12)}.`,
        ].join('\n'),
      );
    });

  pr.command('close')
    .description('Close a pull request without merging it')
    .argument('[number]', 'the pull request number (or --job)')
    .option('--project <id>', 'the project (or AGENTJOBS_PROJECT)')
    .option('--job <jobId>', 'the pull request of this job')
    .option('--json', 'machine-readable output')
    .action(async (number: string | undefined, options: Target) => {
      const ref = refOf(options, number);
      const projectId = projectIdOf(options);
      const { closePullRequest } = await merges();
      const closed = await withStore((store) => run(() => closePullRequest(store, projectId, ref)));
      print(options, closed, () => `Closed #${closed.number} without merging.`);
    });
}
