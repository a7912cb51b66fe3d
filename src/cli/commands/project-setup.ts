/**
 * `agentjobs project setup accept PROJECT_ID` (docs/security.md, "Setup and the environment"): in
 * push mode, the service's own commits that changed what the setup command reads hold the next
 * setup (jobs fail with `setup_needs_review`) until a person who reviewed them accepts them here.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Project } from '../../domain/project.js';
import { acceptSetupReview, describeSetupReview } from '../../operations/setup-review.js';
import { requireProject, withStore } from '../local.js';
import { type OutputOptions, print } from '../output.js';

export function registerProjectSetupCommands(project: Command) {
  const setup = project
    .command('setup')
    .description('The project’s environment: accept setup inputs the service changed in push mode');
  setup
    .command('accept <id>')
    .description(
      'Let the next setup run the setup inputs (setup script, lockfiles, package.json) that the service’s own commits changed; review them first',
    )
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: OutputOptions) => {
      const result = await withStore(async (store) => {
        const found = await requireProject(store, id);
        return { projectId: found.id, accepted: await acceptSetupReview(store, found.id) };
      });
      print(options, result, () =>
        result.accepted
          ? `Accepted: ${describeSetupReview(result.accepted)}. The next setup runs them.`
          : `Nothing waits for review on project ${result.projectId}.`,
      );
    });
}

/**
 * `project check`'s word on the setup command's lockfile: a command that installs only from one
 * (`npm ci`) fails every job's setup when the base branch lacks it. Read from the local repository,
 * or the service's mirror of a remote one; not checked before the first job fetched it.
 */
export async function lockfileChecks(project: Project, dataDir: string) {
  const { lockfilesNeeded } = await import('../../domain/setup-lockfile.js');
  const needs = project.setupCommand ? lockfilesNeeded(project.setupCommand) : [];
  if (needs.length === 0) return [];
  const { runGit } = await import('../../git/run.js');
  const { existsSync } = await import('node:fs');
  const mirror = join(dataDir, 'mirrors', `${project.id}.git`);
  const cwd = project.host === 'local' ? project.repository : existsSync(mirror) ? mirror : null;
  if (!cwd) return [];
  const has = (file: string) =>
    runGit(['cat-file', '-e', `refs/heads/${project.baseBranch}:${file}`], { cwd }).then(
      () => true,
      () => false,
    );
  const checks = [];
  for (const need of needs) {
    const found = (await Promise.all(need.files.map(has))).some(Boolean);
    checks.push({
      name: 'setup lockfile',
      ok: found,
      detail: found
        ? `${project.baseBranch} has the lockfile \`${need.command}\` installs from.`
        : `The setup command runs \`${need.command}\`, which installs only from ${need.files.join(' or ')}, and ${project.baseBranch} has none: every job's setup would fail. Commit one (run \`npm install\` once for npm), or change the setup command.`,
    });
  }
  return checks;
}
