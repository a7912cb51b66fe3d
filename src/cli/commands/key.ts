import type { Command } from 'commander';
import { DEFAULT_KEY_EXPIRY_DAYS } from '../../domain/keys.js';
import { createKey, keyStatus, listKeys, revokeKey } from '../../operations/keys.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';
import { asCommand } from './operation-error.js';

/** Whose keys a command is about: one project's (`--project`), or the instance's (`--all-projects`). */
interface OwnerOptions {
  project?: string;
  allProjects?: boolean;
}

interface CreateOptions extends OutputOptions, OwnerOptions {
  name: string;
  scopes: string;
  expires?: string;
  ip?: string[];
}

const UNIT_SECONDS = { m: 60, h: 3_600, d: 86_400 } as const;

/** `90d`, `12h`, `30m`, or `never`: the key's lifetime in seconds, or null. How long is the operation's rule. */
export function parseLifetime(text: string): number | null {
  if (text === 'never') return null;
  const match = /^(\d{1,5})([mhd])$/.exec(text);
  if (!match) throw new CliError('--expires takes a duration like 30d, 12h or 45m, or never.');
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** The project id the options name, or null for the instance keys. */
function ownerOf(options: OwnerOptions): string | null {
  if (options.allProjects && options.project)
    throw new CliError('Give --project ID or --all-projects, not both.');
  if (options.allProjects) return null;
  if (!options.project) throw new CliError('Give --project ID, or --all-projects for an instance key.');
  return options.project;
}

const ownerText = (projectId: string | null) =>
  projectId === null ? 'every project (instance key)' : `project ${projectId}`;

const FLAGS = { name: '--name', scopes: '--scopes', expires: '--expires', ipAllowlist: '--ip' };

function registerCreate(key: Command) {
  key
    .command('create')
    .description('Create an API key; it is printed once and cannot be shown again')
    .option('--project <id>', 'the project the key belongs to')
    .option('--all-projects', 'an instance key: it works on every project')
    .option('--name <name>', 'what the key is for', 'cli')
    .option('--scopes <scopes>', 'read, write or read,write', 'read,write')
    .option(
      '--expires <duration>',
      'e.g. 30d, 12h, or never (a key that must never expire)',
      `${DEFAULT_KEY_EXPIRY_DAYS}d`,
    )
    .option('--ip <cidr...>', 'allow only these addresses or CIDR ranges')
    .option('--json', 'machine-readable output')
    .action(async (options: CreateOptions) => {
      const input = {
        projectId: ownerOf(options),
        name: options.name,
        scopes: options.scopes.split(','),
        lifetimeSeconds: parseLifetime(options.expires ?? `${DEFAULT_KEY_EXPIRY_DAYS}d`),
        ipAllowlist: options.ip ?? null,
      };
      const { key: plaintext, record } = await withStore((store) =>
        asCommand(() => createKey({ store }, input), FLAGS),
      );
      const { scopes, expiresAt } = record;
      print(options, { ...record, key: plaintext }, () =>
        [
          plaintext,
          '',
          `Key ${record.id} for ${ownerText(record.projectId)} (${scopes.join(', ')}${expiresAt ? `, expires ${expiresAt}` : ''}).`,
          'Store it now: it is not shown again.',
        ].join('\n'),
      );
    });
}

function registerList(key: Command) {
  key
    .command('list')
    .description(
      'List the keys that work on a project: its own and the instance keys (never the keys themselves); with --all-projects, the instance keys',
    )
    .option('--project <id>', 'the project')
    .option('--all-projects', 'only the instance keys, which work on every project')
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions & OwnerOptions) => {
      const projectId = ownerOf(options);
      const { keys: own, instanceKeys } = await withStore((store) =>
        asCommand(() => listKeys({ store }, projectId)),
      );
      const keys = projectId === null ? instanceKeys : [...own, ...instanceKeys];
      print(options, { keys }, () =>
        table([
          ['ID', 'PROJECT', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'EXPIRES', 'LAST USED'],
          ...keys.map((k) => [
            k.id,
            k.projectId ?? 'all',
            k.name,
            `${k.prefix}…`,
            k.scopes.join(','),
            keyStatus(k),
            k.expiresAt ?? 'never',
            k.lastUsedAt ?? 'never',
          ]),
        ]),
      );
    });
}

function registerRevoke(key: Command) {
  key
    .command('revoke')
    .description('Revoke a key; requests with it get 401 at once')
    .option('--project <id>', 'the project the key belongs to')
    .option('--all-projects', 'the key is an instance key')
    .argument('<keyId>', 'the key id from key list')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, options: OutputOptions & OwnerOptions) => {
      const projectId = ownerOf(options);
      await withStore(async (store) => {
        try {
          await asCommand(() => revokeKey({ store }, projectId, keyId));
        } catch (error) {
          if (error instanceof CliError && error.code === 'not_found')
            throw new CliError(`No key ${keyId} for ${ownerText(projectId)}.`, 'key_not_found');
          throw error;
        }
      });
      print(options, { id: keyId, revoked: true }, () => `Revoked key ${keyId}.`);
    });
}

export function registerKeyCommands(program: Command) {
  const key = program.command('key').description('Manage admin API keys (works on the local database)');
  registerCreate(key);
  registerList(key);
  registerRevoke(key);
}
