/**
 * `agentjobs pr list | merge | close`: a local project's pull requests from the command line, as
 * the dashboard has them (docs/code-hosts.md). Works on the local database and the repository, like
 * the other admin commands; a merge is the dashboard's merge.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import type { Project } from '../../domain/project.js';
import type { PullRequest } from '../../domain/pull-request.js';
import type { Store } from '../../store/store.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface Target extends OutputOptions {
  project?: string;
  job?: string;
}

function projectIdOf(options: Target): string {
  const project = options.project ?? process.env.AGENTJOBS_PROJECT;
  if (!project) throw new CliError('Pass --project ID (or set AGENTJOBS_PROJECT).');
  return project;
}

/** The pull request a command names, by its number or by its job, as the repository has it now. */
async function pullRequestOf(
  store: Store,
  options: Target,
  number: string | undefined,
): Promise<{ project: Project; pull: PullRequest }> {
  const project = await requireProject(store, projectIdOf(options));
  if (project.host !== 'local')
    throw new CliError(
      `Project ${project.id} publishes to ${project.host}; its pull requests are merged there.`,
    );
  if ((number === undefined) === (options.job === undefined))
    throw new CliError('Name the pull request: its NUMBER, or --job JOB_ID.');
  let pull: PullRequest | undefined;
  if (options.job !== undefined) {
    const job = await store.jobs.get(project.id, options.job);
    if (!job) throw new CliError(`No job ${options.job} in project ${project.id}.`, 'job_not_found');
    pull = await store.pullRequests.getByBranch(project.id, job.source.ref);
    if (!pull)
      throw new CliError(
        `Job ${job.id} has no pull request${job.status === 'active' ? ' yet: it is still running' : ': it changed no file'}.`,
        'not_found',
      );
  } else {
    if (!/^\d{1,9}$/.test(number ?? '')) throw new CliError(`"${number}" is not a pull request number.`);
    pull = await store.pullRequests.get(project.id, Number(number));
    if (!pull) throw new CliError(`No pull request #${number} in project ${project.id}.`, 'not_found');
  }
  const { noticeOutsideChanges } = await import('../../hosts/local-sync.js');
  return { project, pull: await noticeOutsideChanges(project, pull, store.pullRequests) };
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
      const pulls = await withStore(async (store) => {
        const project = await requireProject(store, projectIdOf(options));
        const { pullRequests } = await store.pullRequests.list(project.id, { limit: 100 });
        const { noticeOutsideChanges } = await import('../../hosts/local-sync.js');
        const seen: PullRequest[] = [];
        for (const pull of pullRequests)
          seen.push(await noticeOutsideChanges(project, pull, store.pullRequests));
        return seen;
      });
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
      const result = await withStore(async (store) => {
        const { project, pull } = await pullRequestOf(store, options, number);
        if (pull.state !== 'open')
          throw new CliError(`Pull request #${pull.number} is already ${pull.state}.`, 'invalid_transition');
        const { CodeHostError } = await import('../../hosts/types.js');
        const { mergeLocalPullRequest } = await import('../../hosts/local-merge.js');
        try {
          return await mergeLocalPullRequest({
            project,
            pullRequest: pull,
            pullRequests: store.pullRequests,
            authorName: config.worker.gitAuthorName,
            authorEmail: config.worker.gitAuthorEmail,
          });
        } catch (error) {
          if (error instanceof CodeHostError) throw new CliError(error.message, 'not_merged');
          throw error;
        }
      }, config);
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
      const closed = await withStore(async (store) => {
        const { project, pull } = await pullRequestOf(store, options, number);
        const closed = await store.pullRequests.finish(project.id, pull.number, 'closed');
        if (!closed)
          throw new CliError(`Pull request #${pull.number} is already ${pull.state}.`, 'invalid_transition');
        return closed;
      });
      print(options, closed, () => `Closed #${closed.number} without merging.`);
    });
}
