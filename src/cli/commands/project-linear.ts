/**
 * `agentjobs project linear-secret PROJECT_ID [--secret-env NAME | --stdin | --clear]`
 * (docs/automations.md, "Linear"): sets the signing secret of the project's Linear webhook, which
 * Linear shows when the webhook is made, and prints the URL to give Linear. The secret comes from
 * an environment variable (`LINEAR_WEBHOOK_SECRET` by default) or standard input, never from an
 * argument, which any user of the machine can read in the process list.
 */
import type { Command } from 'commander';
import { clearLinearSecret, setLinearSecret } from '../../operations/linear-secret.js';
import { lazySecretBox } from '../../store/secrets.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';

interface LinearSecretOptions extends OutputOptions {
  secretEnv?: string;
  stdin?: boolean;
  clear?: boolean;
}

const DEFAULT_ENV = 'LINEAR_WEBHOOK_SECRET';

async function readSecret(options: LinearSecretOptions): Promise<string> {
  if (options.stdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const secret = Buffer.concat(chunks).toString('utf8').trim();
    if (!secret) throw new CliError('Standard input held no secret.');
    return secret;
  }
  const name = options.secretEnv ?? DEFAULT_ENV;
  const secret = process.env[name]?.trim();
  if (!secret)
    throw new CliError(
      `Set ${name} to the signing secret Linear shows for the webhook (or name another variable with --secret-env NAME), or pipe it in with --stdin.`,
    );
  return secret;
}

export function registerProjectLinearCommands(project: Command) {
  project
    .command('linear-secret <id>')
    .description("Set the signing secret of the project's Linear webhook, and print the URL to give Linear")
    .option('--secret-env <name>', `the environment variable holding the secret (default ${DEFAULT_ENV})`)
    .option('--stdin', 'read the secret from standard input')
    .option('--clear', "remove the secret: Linear's deliveries are refused from then on")
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: LinearSecretOptions) => {
      const secret = options.clear ? null : await readSecret(options);
      const result = await withStore(async (store, config) => {
        const found = await requireProject(store, id);
        const deps = { store, secrets: lazySecretBox(config) };
        const url = `${config.publicUrl.replace(/\/+$/, '')}/v2/hooks/${encodeURIComponent(found.id)}/linear`;
        if (secret === null)
          return { projectId: found.id, set: false, removed: await clearLinearSecret(deps, found.id), url };
        await setLinearSecret(deps, found.id, secret);
        return { projectId: found.id, set: true, removed: false, url };
      });
      print(options, result, () =>
        result.set
          ? [
              `The Linear secret of project ${result.projectId} is set.`,
              '',
              `In Linear: Settings → API → Webhooks, the webhook's URL: ${result.url}`,
              'Data change events: tick Issues. Then make an automation with an issue trigger whose source is linear.',
            ].join('\n')
          : result.removed
            ? `The Linear secret of project ${result.projectId} is removed; Linear's deliveries are refused.`
            : `Project ${result.projectId} had no Linear secret.`,
      );
    });
}
