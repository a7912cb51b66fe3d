/**
 * `agentjobs project hook-secret PROJECT_ID [--rotate]` (docs/api.md#code-host-webhooks):
 * makes the project's hook secret and shows it once, with the URL each code host sends its hooks
 * to. A project that has one keeps it unless `--rotate` is given (the old one stops at once).
 */
import type { Command } from 'commander';
import { HOOK_HOSTS, HOOK_SETUP, hookUrl } from '../../domain/hook-secret.js';
import { makeHookSecret } from '../../operations/hook-secrets.js';
import { lazySecretBox } from '../../store/secrets.js';
import { requireProject, withStore } from '../local.js';
import { type OutputOptions, print } from '../output.js';

interface HookSecretOptions extends OutputOptions {
  rotate?: boolean;
}

export function registerProjectHookCommands(project: Command) {
  project
    .command('hook-secret <id>')
    .description(
      'Make the secret the code hosts’ webhooks into this project carry (shown once), and print their URLs',
    )
    .option('--rotate', 'replace the secret the project has; the old one stops working at once')
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: HookSecretOptions) => {
      const result = await withStore(async (store, config) => {
        const found = await requireProject(store, id);
        const urls = Object.fromEntries(
          HOOK_HOSTS.map((host) => [host, hookUrl(config.publicUrl, found.id, host)]),
        );
        const made = await makeHookSecret({ store, secrets: lazySecretBox(config) }, found.id, {
          rotate: options.rotate === true,
        });
        return { projectId: found.id, ...made, urls };
      });
      print(options, result, () => {
        const lines = result.secret
          ? [
              result.rotated
                ? 'A new hook secret; the old one no longer works. It is shown only now:'
                : 'The hook secret, shown only now:',
              '',
              `  ${result.secret}`,
            ]
          : [
              `Project ${result.projectId} has a hook secret already; it cannot be shown again.`,
              `Make a new one with: agentjobs project hook-secret ${result.projectId} --rotate`,
            ];
        lines.push('', 'Give it to the code host with the URL for that host:');
        for (const setup of HOOK_SETUP) {
          lines.push('', `${setup.title}: ${result.urls[setup.host]}`);
          for (const [index, step] of setup.steps.entries()) lines.push(`  ${index + 1}. ${step}`);
        }
        return lines.join('\n');
      });
    });
}
