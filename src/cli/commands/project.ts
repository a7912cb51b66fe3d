import type { Command } from 'commander';
import { type Config, loadConfig } from '../../config/config.js';
import { CODE_HOSTS, PUBLISH_MODES } from '../../domain/project.js';
import { splitModelList } from '../../domain/project-settings.js';
import { lazySecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';
import { requireProject, withStore } from '../local.js';
import { type OutputOptions, print, table } from '../output.js';
import { asCommand } from './operation-error.js';
import { describeContextRepositories, registerProjectContextCommands } from './project-context.js';
import { registerProjectHookCommands } from './project-hooks.js';
import { registerProjectLinearCommands } from './project-linear.js';
import {
  type CreateOptions,
  checkOptionsOf,
  dailyBudgetOf,
  describe,
  PROJECT_FLAGS,
  readToken,
  repositoryOf,
  type TokenOptions,
  type UpdateOptions,
  withCheckOptions,
} from './project-options.js';
import { registerProjectSetupCommands } from './project-setup.js';
import { registerProjectSlackCommands } from './project-slack.js';

/**
 * The project operations (`operations/projects.ts`), loaded only by the commands that change a project:
 * they bring the code hosts' clients (see commands/server.ts).
 */
async function operations(store: Store, config: Config) {
  const projects = await import('../../operations/projects.js');
  const deps = { store, secrets: lazySecretBox(config), sandbox: config.checks.sandbox };
  return { deps, ...projects };
}

async function createAction(options: CreateOptions) {
  const config = loadConfig();
  const { host } = options;
  // The token comes from the environment or stdin; where to find it is the command's to say.
  const token = host === 'local' || !CODE_HOSTS.includes(host) ? null : await readToken(host, options);
  const input = {
    name: options.name,
    repository: repositoryOf(options.repo),
    host,
    baseBranch: options.base ?? null,
    publish: options.publish,
    defaultModel: options.model ?? null,
    allowedModels: splitModelList(options.models ?? ''),
    apiUrl: options.apiUrl ?? null,
    appId: options.appId ?? null,
    installationId: options.installationId ?? null,
    dailyBudgetUsd: options.dailyBudgetUsd === undefined ? null : dailyBudgetOf(options.dailyBudgetUsd),
    ...checkOptionsOf(options),
    token,
  };
  const created = await withStore(async (store) => {
    const { deps, createProject } = await operations(store, config);
    return asCommand(() => createProject(deps, input), PROJECT_FLAGS);
  }, config);
  print(options, created, () => `Created project ${created.id}\n${describe(created)}`);
}

function registerCreate(project: Command) {
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
    .action(createAction);
}

async function updateAction(id: string, options: UpdateOptions) {
  const config = loadConfig();
  const input = {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.base !== undefined ? { baseBranch: options.base } : {}),
    ...(options.publish !== undefined ? { publish: options.publish } : {}),
    ...(options.dailyBudgetUsd !== undefined
      ? { dailyBudgetUsd: dailyBudgetOf(options.dailyBudgetUsd) }
      : {}),
    ...checkOptionsOf(options),
  };
  const updated = await withStore(async (store) => {
    const found = await requireProject(store, id);
    const { deps, updateProject } = await operations(store, config);
    return asCommand(() => updateProject(deps, found.id, input), PROJECT_FLAGS);
  }, config);
  print(options, updated, () => `Updated project ${updated.id}\n${describe(updated)}`);
}

function registerUpdate(project: Command) {
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
    .action(updateAction);
}

function registerListAndGet(project: Command) {
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
}

function registerToken(project: Command) {
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
        const { deps, setProjectToken } = await operations(store, config);
        // A local project is refused before any token is read.
        const token = found.host === 'local' ? '' : await readToken(found.host, options);
        return asCommand(() => setProjectToken(deps, found.id, token), PROJECT_FLAGS);
      });
      print(options, updated, () => `Stored a new token for project ${updated.id}.`);
    });
}

async function checkAction(id: string, options: OutputOptions) {
  const { checkProjectAccess } = await import('../../operations/project-check.js');
  const { createServerCodeHosts } = await import('../../server.js');
  const result = await withStore(async (store, config) => {
    const found = await requireProject(store, id);
    const secrets = lazySecretBox(config);
    const checks = await checkProjectAccess(
      {
        hosts: createServerCodeHosts(config, store, { secrets }),
        store,
        secrets,
        dataDir: config.dataDir,
        sandbox: config.checks.sandbox,
      },
      found,
    );
    return { projectId: found.id, host: found.host, ok: checks.every((check) => check.ok), checks };
  });
  print(options, result, () =>
    [
      ...result.checks.map((check) => `${check.ok ? 'ok     ' : 'MISSING'}  ${check.name}: ${check.detail}`),
      result.ok ? 'Everything the worker needs is in place.' : 'Something is missing; see above.',
    ].join('\n'),
  );
  if (!result.ok) process.exitCode = 1;
}

export function registerProjectCommands(program: Command) {
  const project = program.command('project').description('Manage projects (works on the local database)');
  registerCreate(project);
  registerUpdate(project);
  registerListAndGet(project);
  registerProjectContextCommands(project);
  registerToken(project);
  project
    .command('check <id>')
    .description('Check that the project’s credentials can read the repository, push and open pull requests')
    .option('--json', 'machine-readable output')
    .action(checkAction);
  registerProjectHookCommands(project);
  registerProjectLinearCommands(project);
  registerProjectSetupCommands(project);
  registerProjectSlackCommands(project);
}
