/**
 * `agentjobs project setup accept PROJECT_ID` (docs/security.md, "Setup and the environment"): in
 * push mode, the service's own commits that changed what the setup command reads hold the next
 * setup (jobs fail with `setup_needs_review`) until a person who reviewed them accepts them here.
 */
import type { Command } from 'commander';
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
