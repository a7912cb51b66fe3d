import { join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { CODE_HOSTS, PUBLISH_MODES, type PublishMode } from '../../domain/project.js';
import { lazySecretBox } from '../../store/secrets.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';
import { describeContextRepositories, registerProjectContextCommands } from './project-context.js';
import { registerProjectHookCommands } from './project-hooks.js';
import {
  type CreateOptions,
  checkRepository,
  checkSettingsOf,
  closePrOnArchiveOf,
  dailyBudgetOf,
  describe,
  mentionOf,
  quoteContextOf,
  readToken,
  sandboxCheck,
  settingsOf,
  type TokenOptions,
  type UpdateOptions,
  withCheckOptions,
} from './project-options.js';
import { registerProjectSetupCommands } from './project-setup.js';
import { registerProjectSlackCommands } from './project-slack.js';
export function registerProjectCommands(program: Command) {
  const project = program.command('project').description('Manage projects (works on the local database)');

  withCheckOptions(
    project
      .command('create')
      .description('Create a project on a content repository')
      .requiredOption('--name <name>', 'a name for people')
      .requiredOption('--repo <urlOrPath>', 'the repository: a local path, file:// or https:// URL')
      .option('--host <host>', `code host: ${CODE_HOSTS.join(', ')}`, 'local')
      .option(
        '--base <branch>',
        'the branch pull requests target (default: the repository’s current branch, else main)',
      )
      .option('--publish <mode>', `how changes land: ${PUBLISH_MODES.join(', ')}`, 'pull_request')
      .option(
        '--model <id>',
        'default model for this project: provider:model, or demo (the built-in demo model)',
      )
      .option('--models <ids>', 'comma-separated models this project may use')
      .option(
        '--api-url <url>',
        'github: the REST API base (GitHub Enterprise: https://HOST/api/v3); gitlab, gitea: the instance URL (default: from --repo)',
      )
      .option('--app-id <id>', 'github: authenticate as this GitHub App (the secret is its private key)')
      .option('--installation-id <id>', 'github: the App installation on the repository’s owner')
      .option(
        '--token-env <name>',
        'read the host token from this environment variable (default GITHUB_TOKEN, GITLAB_TOKEN or GITEA_TOKEN)',
      )
      .option('--token-stdin', 'read the host token from standard input'),
  )
    .option(
      '--daily-budget-usd <usd>',
      'what the project’s jobs may spend per UTC day; past it, new runs get 429',
    )
    .option('--json', 'machine-readable output')
    .action(async (options: CreateOptions) => {
      const dailyBudgetUsd =
        options.dailyBudgetUsd === undefined ? null : dailyBudgetOf(options.dailyBudgetUsd);
      if (!CODE_HOSTS.includes(options.host))
        throw new CliError(`--host must be one of ${CODE_HOSTS.join(', ')}.`);
      if (!PUBLISH_MODES.includes(options.publish))
        throw new CliError(`--publish must be one of ${PUBLISH_MODES.join(', ')}.`);
      const name = options.name.trim();
      if (!name) throw new CliError('--name must not be empty.');
      const { hostSettings, models } = settingsOf(options);
      const config = loadConfig();
      const checks = await checkSettingsOf(options, config.checks.sandbox);
      const mention = mentionOf(options);
      // The code-host clients load only for the commands that need them (see commands/server.ts).
      const { checkHostSettings, ProjectSettingsError, resolveRepository } = await import(
        '../../hosts/project-settings.js'
      );
      let repository: string;
      let detectedBase: string | null;
      try {
        ({ repository, detectedBase } = await resolveRepository(options.repo, options.host));
        checkHostSettings(options.host, { repository, hostSettings });
      } catch (error) {
        if (error instanceof ProjectSettingsError) throw new CliError(error.message);
        throw error;
      }
      const baseBranch = options.base ?? detectedBase ?? 'main';
      if (options.host === 'local') await checkRepository(repository, baseBranch);
      const token = options.host === 'local' ? null : await readToken(options.host, options);
      const created = await withStore(async (store) => {
        const made = await store.projects.create({
          name,
          repository,
          host: options.host,
          baseBranch,
          publish: options.publish,
          ...models,
          ...(Object.keys(hostSettings).length ? { hostSettings } : {}),
          ...checks,
          ...closePrOnArchiveOf(options),
          ...quoteContextOf(options),
          ...mention,
          dailyBudgetUsd,
        });
        if (token === null) return made;
        await store.projects.setHostToken(made.id, token, lazySecretBox(config)());
        return (await store.projects.get(made.id)) ?? made;
      }, config);
      print(options, created, () => `Created project ${created.id}\n${describe(created)}`);
    });

  withCheckOptions(
    project
      .command('update <id>')
      .description("Change a project's name, base branch, publish mode, checks or daily budget")
      .option('--name <name>', 'a name for people')
      .option('--daily-budget-usd <usd>', 'what the project’s jobs may spend per UTC day, or none')
      .option('--base <branch>', 'the branch pull requests target')
      .option('--publish <mode>', `how changes land: ${PUBLISH_MODES.join(', ')}`),
  )
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: UpdateOptions) => {
      if (options.publish !== undefined && !PUBLISH_MODES.includes(options.publish as PublishMode))
        throw new CliError(`--publish must be one of ${PUBLISH_MODES.join(', ')}.`);
      if (options.name !== undefined && !options.name.trim()) throw new CliError('--name must not be empty.');
      const config = loadConfig();
      const checks = await checkSettingsOf(options, config.checks.sandbox);
      const dailyBudgetUsd =
        options.dailyBudgetUsd === undefined ? undefined : dailyBudgetOf(options.dailyBudgetUsd);
      const updated = await withStore(async (store) => {
        const found = await requireProject(store, id);
        if (options.base !== undefined && found.host === 'local')
          await checkRepository(found.repository, options.base);
        return (
          (await store.projects.update(found.id, {
            ...(dailyBudgetUsd !== undefined ? { dailyBudgetUsd } : {}),
            ...(options.name !== undefined ? { name: options.name.trim() } : {}),
            ...(options.base !== undefined ? { baseBranch: options.base } : {}),
            ...(options.publish !== undefined ? { publish: options.publish as PublishMode } : {}),
            ...checks,
            ...closePrOnArchiveOf(options),
            ...quoteContextOf(options),
            ...mentionOf(options),
          })) ?? found
        );
      }, config);
      print(options, updated, () => `Updated project ${updated.id}\n${describe(updated)}`);
    });

  project
    .command('list')
    .description('List projects')
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions) => {
      const projects = await withStore((store) => store.projects.list());
      print(options, { projects }, () =>
        projects.length
          ? table([
              ['ID', 'NAME', 'HOST', 'REPOSITORY'],
              ...projects.map((p) => [p.id, p.name, p.host, p.repository]),
            ])
          : 'No projects yet. Create one with: agentjobs project create --name Docs --repo ./docs',
      );
    });

  project
    .command('get <id>')
    .description(
      'Show a project: its settings (repository, checks, environment and commands, budget) and its context repositories',
    )
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: OutputOptions) => {
      const shown = await withStore(async (store) => {
        const found = await requireProject(store, id);
        return { ...found, contextRepositories: await store.contextRepositories.list(found.id) };
      });
      print(
        options,
        shown,
        () =>
          `${describe(shown)}

Context repositories (read by the agent, never written):
${describeContextRepositories(shown.contextRepositories)}`,
      );
    });

  registerProjectContextCommands(project);

  project
    .command('token <id>')
    .description('Store a new code-host token for a project (read from the environment or stdin)')
    .option(
      '--token-env <name>',
      'read the token from this environment variable (default GITHUB_TOKEN, GITLAB_TOKEN or GITEA_TOKEN)',
    )
    .option('--token-stdin', 'read the token from standard input')
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: TokenOptions & OutputOptions) => {
      const updated = await withStore(async (store, config) => {
        const found = await requireProject(store, id);
        if (found.host === 'local') throw new CliError('A local project needs no token.');
        const token = await readToken(found.host, options);
        await store.projects.setHostToken(found.id, token, lazySecretBox(config)());
        return (await store.projects.get(found.id)) ?? found;
      });
      print(options, updated, () => `Stored a new token for project ${updated.id}.`);
    });

  project
    .command('check <id>')
    .description('Check that the project’s credentials can read the repository, push and open pull requests')
    .option('--json', 'machine-readable output')
    .action(async (id: string, options: OutputOptions) => {
      const { checkProject } = await import('../../hosts/index.js');
      const { createServerCodeHosts } = await import('../../server.js');
      const result = await withStore(async (store, config) => {
        const found = await requireProject(store, id);
        const checks = await checkProject(
          createServerCodeHosts(config, store, { secrets: lazySecretBox(config) }),
          found,
        );
        if (found.checkCommand || found.setupCommand || found.agentCommands)
          checks.push(await sandboxCheck(config.checks.sandbox));
        const { checkContextRepositories } = await import('../../jobs/context-repositories.js');
        checks.push(
          ...(await checkContextRepositories(
            { store, secrets: lazySecretBox(config), askpassDir: join(config.dataDir, 'askpass') },
            found.id,
          )),
        );
        return { projectId: found.id, host: found.host, ok: checks.every((check) => check.ok), checks };
      });
      print(options, result, () =>
        [
          ...result.checks.map(
            (check) => `${check.ok ? 'ok     ' : 'MISSING'}  ${check.name}: ${check.detail}`,
          ),
          result.ok ? 'Everything the worker needs is in place.' : 'Something is missing; see above.',
        ].join('\n'),
      );
      if (!result.ok) process.exitCode = 1;
    });

  registerProjectHookCommands(project);
  registerProjectSetupCommands(project);
  registerProjectSlackCommands(project);
}
