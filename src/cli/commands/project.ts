import type { Command } from 'commander';
import type { SandboxSettings } from '../../checks/sandbox.js';
import { loadConfig } from '../../config/config.js';
import { CHECK_FAILURE_POLICIES, DEFAULT_CHECK_TIMEOUT_SECONDS } from '../../domain/checks.js';
import {
  CODE_HOSTS,
  type CodeHostKind,
  type Project,
  PUBLISH_MODES,
  type PublishMode,
} from '../../domain/project.js';
import {
  checkModelSettings,
  hostSettingsFor,
  type ProjectField,
  readDailyBudget,
  type SettingProblem,
  splitModelList,
} from '../../domain/project-settings.js';
import { lazySecretBox } from '../../store/secrets.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface CreateOptions extends OutputOptions, CheckOptions {
  name: string;
  repo: string;
  host: CodeHostKind;
  base?: string;
  publish: PublishMode;
  model?: string;
  models?: string;
  apiUrl?: string;
  appId?: string;
  installationId?: string;
  tokenEnv?: string;
  tokenStdin?: boolean;
  dailyBudgetUsd?: string;
}

/** The check options of `project create` and `project update`. */
interface CheckOptions {
  /** `yes` or `no`: whether archiving a job closes its pull request. */
  closePrOnArchive?: string;
  checkCommand?: string;
  checkTimeout?: string;
  onCheckFailure?: string;
  builtInChecks?: boolean;
}

interface UpdateOptions extends CheckOptions, OutputOptions {
  name?: string;
  dailyBudgetUsd?: string;
  base?: string;
  publish?: string;
}

interface TokenOptions {
  tokenEnv?: string;
  tokenStdin?: boolean;
}

/** The environment variable a host's token is read from by default. */
const DEFAULT_TOKEN_ENV: Partial<Record<CodeHostKind, string>> = {
  github: 'GITHUB_TOKEN',
  gitlab: 'GITLAB_TOKEN',
  gitea: 'GITEA_TOKEN',
};

/**
 * The host token (or App private key), from standard input or an environment variable: never from
 * an argument, which any user of the machine can read in the process list.
 */
async function readToken(host: CodeHostKind, options: TokenOptions): Promise<string> {
  if (options.tokenStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const token = Buffer.concat(chunks).toString('utf8').trim();
    if (!token) throw new CliError('Standard input held no token.');
    return token;
  }
  const name = options.tokenEnv ?? DEFAULT_TOKEN_ENV[host];
  const token = name ? process.env[name]?.trim() : undefined;
  if (!name || !token)
    throw new CliError(
      `A ${host} project needs a token: set ${name ?? 'a variable'} (or name another with --token-env NAME), or pipe it in with --token-stdin.`,
    );
  return token;
}

/** The flag each project setting is given with. */
const FLAG: Record<ProjectField, string> = {
  defaultModel: '--model',
  allowedModels: '--models',
  apiUrl: '--api-url',
  appId: '--app-id',
  installationId: '--installation-id',
};

/** Stops at the first problem, said as the dashboard says it, after the flag it is about. */
function refuse(problems: SettingProblem[]): void {
  const [first] = problems;
  if (first) throw new CliError(`${FLAG[first.field]}: ${first.message}`);
}

/** The host and model settings given on the command line, checked by the dashboard's rules. */
function settingsOf(options: CreateOptions) {
  const host = hostSettingsFor(options.host, options);
  const defaultModel = options.model?.trim() || null;
  const listed = splitModelList(options.models ?? '');
  const allowedModels = listed.length ? listed : null;
  refuse([...host.problems, ...checkModelSettings(defaultModel, allowedModels)]);
  return { hostSettings: host.settings, models: { defaultModel, allowedModels } };
}

/** The check settings given on the command line, checked (a command needs a working sandbox). */
async function checkSettingsOf(options: CheckOptions, sandbox: SandboxSettings) {
  const { CheckSettingsError, parseCheckSettings } = await import('../../checks/settings.js');
  const timeout = options.checkTimeout;
  try {
    const parsed = await parseCheckSettings(
      {
        ...(options.checkCommand !== undefined ? { checkCommand: options.checkCommand } : {}),
        ...(timeout !== undefined
          ? { checkTimeoutSeconds: /^\d+$/.test(timeout) ? Number(timeout) : Number.NaN }
          : {}),
        ...(options.onCheckFailure !== undefined ? { onCheckFailure: options.onCheckFailure } : {}),
      },
      sandbox,
    );
    return {
      ...parsed,
      ...(options.builtInChecks !== undefined ? { builtInChecks: options.builtInChecks } : {}),
    };
  } catch (error) {
    if (!(error instanceof CheckSettingsError)) throw error;
    const flag = {
      checkCommand: '--check-command',
      checkTimeoutSeconds: '--check-timeout',
      onCheckFailure: '--on-check-failure',
    }[error.field];
    // Some reasons are whole sentences already (the sandbox's); the others get their full stop here.
    throw new CliError(`${flag} ${error.message}${error.message.endsWith('.') ? '' : '.'}`);
  }
}

/** Adds the check options to a command. */
function withCheckOptions(command: Command): Command {
  return command
    .option(
      '--check-command <command>',
      'a command run in the sandbox on a checkout of each job\'s work before it is published, e.g. "vale ." ("" removes it)',
    )
    .option(
      '--check-timeout <seconds>',
      `time limit of the check command (default ${DEFAULT_CHECK_TIMEOUT_SECONDS})`,
    )
    .option(
      '--on-check-failure <policy>',
      `when checks still fail: ${CHECK_FAILURE_POLICIES.join(', ')} (default draft)`,
    )
    .option('--built-in-checks', 'run the built-in checks (the default)')
    .option('--no-built-in-checks', 'do not run the built-in checks')
    .option(
      '--close-pr-on-archive <yes|no>',
      'whether archiving a job closes its open pull request (default yes)',
    );
}

/** `--close-pr-on-archive`, as a project setting. */
function closePrOnArchiveOf(options: CheckOptions): { closePrOnArchive?: boolean } {
  if (options.closePrOnArchive === undefined) return {};
  if (!/^(yes|no)$/.test(options.closePrOnArchive))
    throw new CliError(`--close-pr-on-archive takes yes or no (got "${options.closePrOnArchive}").`);
  return { closePrOnArchive: options.closePrOnArchive === 'yes' };
}

/** Where each remote host finds the repository; throws `CodeHostError` when the settings cannot say. */
const describe = (project: Project) =>
  table([
    ['id', project.id],
    ['name', project.name],
    ['repository', project.repository],
    ['host', project.host],
    ['base branch', project.baseBranch],
    ['publish', project.publish],
    ['built-in checks', project.builtInChecks ? 'on' : 'off'],
    ['close PR on archive', project.closePrOnArchive ? 'yes' : 'no'],
    [
      'check command',
      project.checkCommand ? `${project.checkCommand} (limit ${project.checkTimeoutSeconds} s)` : 'none',
    ],
    ['on check failure', project.onCheckFailure],
    ...(project.host === 'local' ? [] : [['token', project.hasHostToken ? 'stored, encrypted' : 'none']]),
    [
      'daily budget',
      project.dailyBudgetUsd === null ? 'none' : `$${project.dailyBudgetUsd.toFixed(2)} a day (UTC)`,
    ],
  ]);

/** Whether the project's check command can run here: the sandbox it needs. */
async function sandboxCheck(settings: SandboxSettings) {
  const { sandboxStatus } = await import('../../checks/sandbox.js');
  const status = await sandboxStatus(settings);
  const limits = `${settings.processes} processes, ${settings.memoryBytes / 1024 ** 2} MiB of memory, ${settings.diskBytes / 1024 ** 2} MiB written`;
  return {
    name: 'sandbox',
    ok: status.available,
    detail: !status.available
      ? `The check command cannot run: ${status.reason}`
      : status.unsafe
        ? `The check command can run in the sandbox (bubblewrap) on this machine. ${status.reason}`
        : `The check command can run in the sandbox (bubblewrap) on this machine, within ${limits}.`,
  };
}

/** `--daily-budget-usd`: an amount in US dollars, or `none` to remove the budget. */
/** The repository checks of `git/repository-check.ts`, as the command's own error. */
async function checkRepository(repository: string, baseBranch: string): Promise<void> {
  const { checkLocalRepository, RepositoryCheckError } = await import('../../git/repository-check.js');
  try {
    await checkLocalRepository(repository, baseBranch);
  } catch (error) {
    if (error instanceof RepositoryCheckError) throw new CliError(error.message, 'repository_not_ready');
    throw error;
  }
}

function dailyBudgetOf(value: string): number | null {
  const read = readDailyBudget(value);
  if ('problem' in read) throw new CliError(`--daily-budget-usd: ${read.problem}; got "${value}".`);
  return read.value;
}

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
        if (found.checkCommand) checks.push(await sandboxCheck(config.checks.sandbox));
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
}
