import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  CODE_HOSTS,
  type CodeHostKind,
  type Project,
  PUBLISH_MODES,
  type PublishMode,
} from '../../store/projects.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

interface CreateOptions extends OutputOptions {
  name: string;
  repo: string;
  host: CodeHostKind;
  base?: string;
  publish: PublishMode;
  model?: string;
  models?: string;
}

function git(repository: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', repository, ...args], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    }).trim();
  } catch {
    return null;
  }
}

/**
 * A local repository is stored as an absolute path and must be a git repository; its current
 * branch is the default base. URLs are taken as they are.
 */
function resolveRepository(
  repo: string,
  host: CodeHostKind,
): { repository: string; detectedBase: string | null } {
  if (/^(https?|ssh|git):\/\//.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo)) {
    if (host === 'local')
      throw new CliError('A local project needs a path on this machine (or file://), not a remote URL.');
    return { repository: repo, detectedBase: null };
  }
  const local = repo.startsWith('file://') ? new URL(repo).pathname : repo;
  const absolute = path.resolve(local);
  if (!fs.existsSync(absolute)) throw new CliError(`${absolute} does not exist.`);
  if (git(absolute, ['rev-parse', '--git-dir']) === null)
    throw new CliError(`${absolute} is not a git repository.`);
  return { repository: absolute, detectedBase: git(absolute, ['symbolic-ref', '--short', 'HEAD']) };
}

const describe = (project: Project) =>
  table([
    ['id', project.id],
    ['name', project.name],
    ['repository', project.repository],
    ['host', project.host],
    ['base branch', project.baseBranch],
    ['publish', project.publish],
  ]);

export function registerProjectCommands(program: Command) {
  const project = program.command('project').description('Manage projects (works on the local database)');

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
    .option('--model <id>', 'default model for this project, provider:model')
    .option('--models <ids>', 'comma-separated models this project may use')
    .option('--json', 'machine-readable output')
    .action(async (options: CreateOptions) => {
      if (!CODE_HOSTS.includes(options.host))
        throw new CliError(`--host must be one of ${CODE_HOSTS.join(', ')}.`);
      if (!PUBLISH_MODES.includes(options.publish))
        throw new CliError(`--publish must be one of ${PUBLISH_MODES.join(', ')}.`);
      const name = options.name.trim();
      if (!name) throw new CliError('--name must not be empty.');
      const { repository, detectedBase } = resolveRepository(options.repo, options.host);
      const created = await withStore((store) =>
        store.projects.create({
          name,
          repository,
          host: options.host,
          baseBranch: options.base ?? detectedBase ?? 'main',
          publish: options.publish,
          defaultModel: options.model ?? null,
          allowedModels: options.models
            ? options.models
                .split(',')
                .map((m) => m.trim())
                .filter(Boolean)
            : null,
        }),
      );
      print(options, created, () => `Created project ${created.id}\n${describe(created)}`);
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
}
