/**
 * `agentjobs project context add|list|remove`: a project's context repositories (docs/architecture.md#the-runs-phases),
 * the other repositories its agent reads. On the local database, as the other project commands;
 * checked by the same rules as the dashboard's (`operations/context-repositories.ts`).
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { ContextRepository } from '../../domain/context-repository.js';
import { AppError } from '../../domain/errors.js';
import { CODE_HOSTS, type CodeHostKind } from '../../domain/project.js';
import { lazySecretBox } from '../../store/secrets.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';
import { readToken, type TokenOptions } from './project-options.js';

interface AddOptions extends OutputOptions, TokenOptions {
  name: string;
  repo: string;
  ref?: string;
  host?: string;
}

const isUrl = (repository: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(repository);

/** The flag each refused field was given with. */
const FLAGS: Record<string, string> = {
  name: '--name',
  repository: '--repo',
  ref: '--ref',
  host: '--host',
  token: '--token-env',
};

/** A refusal of the shared checks, said after the flag it is about. */
function asCliError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const field = error.details?.[0]?.path;
  const flag = field ? FLAGS[field] : undefined;
  return new CliError(flag ? `${flag}: ${error.message}` : error.message, error.code);
}

/** The context repositories as a table (`project get` prints it too). */
export function describeContextRepositories(repositories: ContextRepository[]): string {
  if (repositories.length === 0) return 'No context repositories.';
  return table([
    ['NAME', 'REPOSITORY', 'REF', 'HOST', 'TOKEN'],
    ...repositories.map((repository) => [
      repository.name,
      repository.repository,
      repository.ref ?? '(default branch)',
      repository.host,
      repository.host === 'local' ? '-' : repository.hasToken ? 'stored, encrypted' : 'none',
    ]),
  ]);
}

export function registerProjectContextCommands(project: Command) {
  const context = project
    .command('context')
    .description("Manage a project's context repositories: other repositories its agent reads, never writes");

  context
    .command('add <projectId>')
    .description('Add a context repository (at most 10 per project)')
    .requiredOption('--name <name>', 'what the agent calls it: lower-case letters, digits and "-"')
    .requiredOption('--repo <urlOrPath>', 'a local path, file:// or https:// URL')
    .option('--ref <branch>', "the branch read (default: the repository's default branch)")
    .option(
      '--host <host>',
      `code host of a remote repository: ${CODE_HOSTS.filter((h) => h !== 'local').join(', ')}`,
    )
    .option(
      '--token-env <name>',
      'read a token for a private remote repository from this environment variable',
    )
    .option('--token-stdin', 'read that token from standard input')
    .option('--json', 'machine-readable output')
    .action(async (projectId: string, options: AddOptions) => {
      // A relative path is taken from where the command runs, as `project create` does.
      const repository = isUrl(options.repo) ? options.repo : path.resolve(options.repo);
      const token =
        options.tokenStdin || options.tokenEnv
          ? await readToken((options.host ?? 'github') as CodeHostKind, options)
          : null;
      const { addContextRepository } = await import('../../operations/context-repositories.js');
      const added = await withStore(async (store, config) => {
        const found = await requireProject(store, projectId);
        return addContextRepository(
          { store, secrets: lazySecretBox(config), dataDir: config.dataDir },
          found.id,
          {
            name: options.name,
            repository,
            ref: options.ref ?? null,
            host: options.host ?? null,
            token,
          },
        ).catch((error: unknown) => {
          throw asCliError(error);
        });
      });
      print(
        options,
        added,
        () =>
          `Added context repository ${added.name} to project ${projectId}\n${describeContextRepositories([added])}`,
      );
    });

  context
    .command('list <projectId>')
    .description("List a project's context repositories")
    .option('--json', 'machine-readable output')
    .action(async (projectId: string, options: OutputOptions) => {
      const contextRepositories = await withStore(async (store) => {
        const found = await requireProject(store, projectId);
        return store.contextRepositories.list(found.id);
      });
      print(options, { contextRepositories }, () => describeContextRepositories(contextRepositories));
    });

  context
    .command('remove <projectId> <name>')
    .description('Remove a context repository and its mirror')
    .option('--json', 'machine-readable output')
    .action(async (projectId: string, name: string, options: OutputOptions) => {
      const { removeContextRepository } = await import('../../operations/context-repositories.js');
      await withStore(async (store, config) => {
        const found = await requireProject(store, projectId);
        await removeContextRepository(
          { store, mirrorsDir: path.join(config.dataDir, 'mirrors') },
          found.id,
          name,
        ).catch((error: unknown) => {
          throw asCliError(error);
        });
      });
      print(
        options,
        { removed: name },
        () => `Removed context repository ${name} from project ${projectId}.`,
      );
    });
}
