import type { Command } from 'commander';
import type { ApiKey } from '../../domain/api-key.js';
import { parseAllowlistEntry } from '../../domain/ip-allowlist.js';
import { DEFAULT_KEY_EXPIRY_DAYS, generateKey, KEY_SCOPES, type KeyScope } from '../../domain/keys.js';
import type { Store } from '../../store/store.js';
import { requireProject, withStore } from '../local.js';
import { CliError, type OutputOptions, print, table } from '../output.js';

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

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90d`, `12h`, `30m`, or `never`; returns the expiry time or null. */
export function parseExpiry(text: string | undefined, now = Date.now()): string | null {
  if (text === undefined || text === 'never') return null;
  const match = /^(\d{1,5})([mhd])$/.exec(text);
  if (!match) throw new CliError('--expires takes a duration like 30d, 12h or 45m, or never.');
  const amount = Number(match[1]);
  if (amount === 0) throw new CliError('--expires must be longer than zero.');
  return new Date(now + amount * UNIT_MS[match[2] as keyof typeof UNIT_MS]).toISOString();
}

function parseScopes(text: string): KeyScope[] {
  const scopes = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = scopes.filter((s) => !KEY_SCOPES.includes(s as KeyScope));
  if (scopes.length === 0 || unknown.length)
    throw new CliError(`--scopes takes read, write or read,write (got "${text}").`);
  return scopes as KeyScope[];
}

/** The project id the options name, or null for the instance keys; checks the project exists. */
async function ownerOf(store: Store, options: OwnerOptions): Promise<string | null> {
  if (options.allProjects && options.project)
    throw new CliError('Give --project ID or --all-projects, not both.');
  if (options.allProjects) return null;
  if (!options.project) throw new CliError('Give --project ID, or --all-projects for an instance key.');
  await requireProject(store, options.project);
  return options.project;
}

const ownerText = (projectId: string | null) =>
  projectId === null ? 'every project (instance key)' : `project ${projectId}`;

function status(key: ApiKey, now = Date.now()): string {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

export function registerKeyCommands(program: Command) {
  const key = program.command('key').description('Manage admin API keys (works on the local database)');

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
      const scopes = parseScopes(options.scopes);
      const expiresAt = parseExpiry(options.expires);
      for (const entry of options.ip ?? []) {
        try {
          parseAllowlistEntry(entry);
        } catch (error) {
          throw new CliError(`--ip ${(error as Error).message}.`);
        }
      }
      const plaintext = generateKey();
      const record = await withStore(async (store) => {
        const projectId = await ownerOf(store, options);
        return store.apiKeys.create({
          projectId,
          key: plaintext,
          name: options.name,
          scopes,
          ipAllowlist: options.ip ?? null,
          expiresAt,
        });
      });
      print(options, { ...record, key: plaintext }, () =>
        [
          plaintext,
          '',
          `Key ${record.id} for ${ownerText(record.projectId)} (${scopes.join(', ')}${expiresAt ? `, expires ${expiresAt}` : ''}).`,
          'Store it now: it is not shown again.',
        ].join('\n'),
      );
    });

  key
    .command('list')
    .description(
      'List the keys that work on a project: its own and the instance keys (never the keys themselves); with --all-projects, the instance keys',
    )
    .option('--project <id>', 'the project')
    .option('--all-projects', 'only the instance keys, which work on every project')
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions & OwnerOptions) => {
      const keys = await withStore(async (store) => {
        const projectId = await ownerOf(store, options);
        const instanceKeys = await store.apiKeys.list(null);
        return projectId === null
          ? instanceKeys
          : [...(await store.apiKeys.list(projectId)), ...instanceKeys];
      });
      print(options, { keys }, () =>
        table([
          ['ID', 'PROJECT', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'EXPIRES', 'LAST USED'],
          ...keys.map((k) => [
            k.id,
            k.projectId ?? 'all',
            k.name,
            `${k.prefix}…`,
            k.scopes.join(','),
            status(k),
            k.expiresAt ?? 'never',
            k.lastUsedAt ?? 'never',
          ]),
        ]),
      );
    });

  key
    .command('revoke')
    .description('Revoke a key; requests with it get 401 at once')
    .option('--project <id>', 'the project the key belongs to')
    .option('--all-projects', 'the key is an instance key')
    .argument('<keyId>', 'the key id from key list')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, options: OutputOptions & OwnerOptions) => {
      const [found, projectId] = await withStore(async (store) => {
        const owner = await ownerOf(store, options);
        return [await store.apiKeys.revoke(owner, keyId), owner] as const;
      });
      if (!found) throw new CliError(`No key ${keyId} for ${ownerText(projectId)}.`, 'key_not_found');
      print(options, { id: keyId, revoked: true }, () => `Revoked key ${keyId}.`);
    });
}
