/**
 * The options of `project create` and `project update` and how they become settings: flags to
 * settings, tokens read from the environment or stdin, the repository and sandbox checks, and the
 * printed project.
 */

import path from 'node:path';
import type { Command } from 'commander';
import { CHECK_FAILURE_POLICIES, DEFAULT_CHECK_TIMEOUT_SECONDS } from '../../domain/checks.js';
import {
  type CodeHostKind,
  DEFAULT_PROJECT_MENTION,
  type Project,
  type PublishMode,
} from '../../domain/project.js';
import { readDailyBudget } from '../../domain/project-settings.js';
import type { ProjectInput } from '../../operations/projects.js';
import { describeSetupReview } from '../../operations/setup-review.js';
import { CliError, type OutputOptions, table } from '../output.js';

export interface CreateOptions extends OutputOptions, CheckOptions {
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
export interface CheckOptions {
  /** `yes` or `no`: whether archiving a job closes its pull request. */
  closePrOnArchive?: string;
  checkCommand?: string;
  checkTimeout?: string;
  onCheckFailure?: string;
  builtInChecks?: boolean;
  setupCommand?: string;
  /** `yes` or `no`: whether the agent has the `run_command` tool. */
  agentCommands?: string;
  /** The word that calls the service in a comment (`@agentjobs` by default). */
  mention?: string;
  /** `yes` or `no`: whether a pull request quotes what an automation rendered from a context repository. */
  quoteContext?: string;
}

export interface UpdateOptions extends CheckOptions, OutputOptions {
  name?: string;
  dailyBudgetUsd?: string;
  base?: string;
  publish?: string;
}

export interface TokenOptions {
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
export async function readToken(host: CodeHostKind, options: TokenOptions): Promise<string> {
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

/** The flag each field of the project operations (`operations/projects.ts`) is given with. */
export const PROJECT_FLAGS: Readonly<Record<string, string>> = {
  name: '--name',
  repository: '--repo',
  host: '--host',
  baseBranch: '--base',
  publish: '--publish',
  defaultModel: '--model',
  allowedModels: '--models',
  dailyBudgetUsd: '--daily-budget-usd',
  apiUrl: '--api-url',
  appId: '--app-id',
  installationId: '--installation-id',
  checkCommand: '--check-command',
  checkTimeoutSeconds: '--check-timeout',
  onCheckFailure: '--on-check-failure',
  setupCommand: '--setup-command',
  agentCommands: '--agent-commands',
  mention: '--mention',
  token: '--token-env',
};

/**
 * `--repo` as the operation takes it: a URL as given, a path made absolute from where the command
 * runs (the person typed it relative to their shell's directory, which only the CLI knows).
 */
export function repositoryOf(repo: string): string {
  const trimmed = repo.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^[\w.-]+@[\w.-]+:/.test(trimmed) || trimmed === '')
    return trimmed;
  return path.resolve(trimmed);
}

/** The check, comment and publishing options as settings; only what was given. The rules are the operation's. */
export function checkOptionsOf(options: CheckOptions): ProjectInput {
  const timeout = options.checkTimeout;
  const yesNo = (flag: string, value: string | undefined) =>
    value === undefined ? undefined : yesOrNo(flag, value);
  const settings: ProjectInput = {
    checkCommand: options.checkCommand,
    checkTimeoutSeconds:
      timeout === undefined ? undefined : /^\d+$/.test(timeout) ? Number(timeout) : Number.NaN,
    onCheckFailure: options.onCheckFailure,
    setupCommand: options.setupCommand,
    agentCommands: yesNo('--agent-commands', options.agentCommands),
    builtInChecks: options.builtInChecks,
    closePrOnArchive: yesNo('--close-pr-on-archive', options.closePrOnArchive),
    quoteContext: yesNo('--quote-context', options.quoteContext),
    mention: options.mention,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** Adds the check options to a command. */
export function withCheckOptions(command: Command): Command {
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
    .option(
      '--setup-command <command>',
      'a command run in the sandbox, with network, on the base tree before the agent starts, e.g. "npm ci"; what it leaves (node_modules, …) is cached and laid into every later command ("" removes it)',
    )
    .option(
      '--agent-commands <yes|no>',
      'whether the agent may run commands (run_command) offline in the sandbox on its work (default no)',
    )
    .option('--built-in-checks', 'run the built-in checks (the default)')
    .option('--no-built-in-checks', 'do not run the built-in checks')
    .option(
      '--close-pr-on-archive <yes|no>',
      'whether archiving a job closes its open pull request (default yes)',
    )
    .option(
      '--quote-context <yes|no>',
      "whether a pull request's description quotes what an automation rendered from a context repository (its diff, commits, comments), which may be private (default no: it names what triggered the run)",
    )
    .option(
      '--mention <word>',
      `what calls the service in a comment on the code host, @ and a user name (default ${DEFAULT_PROJECT_MENTION})`,
    );
}

/** A `yes|no` flag's value. */
function yesOrNo(flag: string, value: string): boolean {
  if (!/^(yes|no)$/.test(value)) throw new CliError(`${flag} takes yes or no (got "${value}").`);
  return value === 'yes';
}

/** A project, as `project get|create|update` print it. */
export const describe = (project: Project) =>
  table([
    ['id', project.id],
    ['name', project.name],
    ['repository', project.repository],
    ['host', project.host],
    ['base branch', project.baseBranch],
    ['publish', project.publish],
    ['built-in checks', project.builtInChecks ? 'on' : 'off'],
    ['close PR on archive', project.closePrOnArchive ? 'yes' : 'no'],
    ['mention', project.mention],
    ['quote context in PRs', project.quoteContext ? 'yes' : 'no'],
    [
      'check command',
      project.checkCommand ? `${project.checkCommand} (limit ${project.checkTimeoutSeconds} s)` : 'none',
    ],
    ['on check failure', project.onCheckFailure],
    ['setup command', project.setupCommand ?? 'none'],
    ...(project.setupReview
      ? [
          [
            'setup held',
            `${describeSetupReview(project.setupReview)}; setup waits until a person reviews them and runs: agentjobs project setup accept ${project.id}`,
          ],
        ]
      : []),
    ['agent commands', project.agentCommands ? 'yes (run_command, offline in the sandbox)' : 'no'],
    ...(project.host === 'local' ? [] : [['token', project.hasHostToken ? 'stored, encrypted' : 'none']]),
    [
      'daily budget',
      project.dailyBudgetUsd === null ? 'none' : `$${project.dailyBudgetUsd.toFixed(2)} a day (UTC)`,
    ],
  ]);

/** `--daily-budget-usd`: an amount in US dollars, or `none` to remove the budget. */
export function dailyBudgetOf(value: string): number | null {
  const read = readDailyBudget(value);
  if ('problem' in read) throw new CliError(`--daily-budget-usd: ${read.problem}; got "${value}".`);
  return read.value;
}
