/**
 * API keys: making, listing and revoking them, the same for every entry point (the dashboard's
 * keys pages, `agentjobs key`, `agentjobs quickstart`). The rules live here: a name of 1 to 100
 * characters, at least one known scope, an expiry in the future (90 days unless the maker says
 * otherwise, `null` for a key that never expires), IP allowlist entries that parse, and an owner
 * that exists (a project, or `null` for an instance key). A broken rule is an `InputError` naming
 * its field (`name`, `scopes`, `expires`, `ipAllowlist`); an unknown project is
 * `project_not_found`, an unknown key `not_found`.
 */
import type { ApiKey } from '../domain/api-key.js';
import { AppError } from '../domain/errors.js';
import { parseAllowlistEntry } from '../domain/ip-allowlist.js';
import { DEFAULT_KEY_EXPIRY_DAYS, generateKey, KEY_SCOPES, type KeyScope } from '../domain/keys.js';
import type { Store } from '../store/store.js';
import { type FieldProblem, InputError } from './input.js';

/** What the key operations need. */
export interface KeyOperationDeps {
  store: Pick<Store, 'projects' | 'apiKeys'>;
}

/** The longest name a key may have. */
export const MAX_KEY_NAME_CHARS = 100;
const DAY_SECONDS = 86_400;
/** The default lifetime of a key, in seconds. */
export const DEFAULT_KEY_LIFETIME_SECONDS = DEFAULT_KEY_EXPIRY_DAYS * DAY_SECONDS;
/** The longest lifetime a key may be given (a key that must live longer never expires). */
const MAX_KEY_LIFETIME_SECONDS = 100_000 * DAY_SECONDS;

/** A key as its maker asks for it. */
export interface KeyInput {
  /** The project the key works on; null makes an instance key, which works on every project. */
  projectId: string | null;
  name: string;
  scopes: readonly string[];
  /** How long the key lives, in seconds; null: it never expires; absent: 90 days. */
  lifetimeSeconds?: number | null | undefined;
  /** The addresses or CIDR ranges the key may be used from; empty or absent: any. */
  ipAllowlist?: readonly string[] | null | undefined;
}

/** A key just made: the plaintext, shown once and never stored, and its record. */
export interface CreatedKey {
  key: string;
  record: ApiKey;
}

/** Whether a key works now, and if not why. */
export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now = Date.now()): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

function nameProblem(name: string): FieldProblem | null {
  if (name === '') return { field: 'name', problem: 'empty', message: 'is required' };
  if (name.length > MAX_KEY_NAME_CHARS)
    return {
      field: 'name',
      problem: 'too_long',
      message: `must be at most ${MAX_KEY_NAME_CHARS} characters`,
      limit: MAX_KEY_NAME_CHARS,
    };
  return null;
}

function scopesOf(scopes: readonly string[]): KeyScope[] | FieldProblem {
  const unique = [...new Set(scopes.map((scope) => scope.trim()).filter(Boolean))];
  if (unique.length === 0 || unique.some((scope) => !KEY_SCOPES.includes(scope as KeyScope)))
    return {
      field: 'scopes',
      problem: unique.length === 0 ? 'empty' : 'invalid',
      message: `must be ${KEY_SCOPES.join(', ')} or both`,
    };
  return unique as KeyScope[];
}

function expiryOf(lifetime: number | null | undefined, now: number): string | null | FieldProblem {
  if (lifetime === null) return null;
  const seconds = lifetime ?? DEFAULT_KEY_LIFETIME_SECONDS;
  if (!Number.isInteger(seconds) || seconds <= 0 || seconds > MAX_KEY_LIFETIME_SECONDS)
    return { field: 'expires', problem: 'invalid', message: 'must be a time in the future, or never' };
  return new Date(now + seconds * 1000).toISOString();
}

function allowlistProblem(entries: readonly string[]): FieldProblem | null {
  for (const entry of entries) {
    try {
      parseAllowlistEntry(entry);
    } catch (error) {
      return { field: 'ipAllowlist', problem: 'invalid', message: (error as Error).message };
    }
  }
  return null;
}

/** The project `projectId` names exists (null: the instance, which always does). */
export async function requireKeyOwner(deps: KeyOperationDeps, projectId: string | null): Promise<void> {
  if (projectId !== null && !(await deps.store.projects.get(projectId)))
    throw new AppError('project_not_found', `No project ${projectId}.`);
}

/**
 * Makes a key after checking every rule; every wrong field is named at once.
 * @throws InputError, AppError `project_not_found`
 */
export async function createKey(
  deps: KeyOperationDeps,
  input: KeyInput,
  now = Date.now(),
): Promise<CreatedKey> {
  const name = input.name.trim();
  const scopes = scopesOf(input.scopes);
  const expiresAt = expiryOf(input.lifetimeSeconds, now);
  const ipAllowlist = (input.ipAllowlist ?? []).map((entry) => entry.trim()).filter(Boolean);
  const problems = [
    nameProblem(name),
    Array.isArray(scopes) ? null : scopes,
    typeof expiresAt === 'object' && expiresAt !== null ? expiresAt : null,
    allowlistProblem(ipAllowlist),
  ].filter((problem): problem is FieldProblem => problem !== null);
  const [first, ...rest] = problems;
  if (first) throw new InputError([first, ...rest]);
  await requireKeyOwner(deps, input.projectId);
  const key = generateKey();
  const record = await deps.store.apiKeys.create({
    projectId: input.projectId,
    key,
    name,
    scopes: scopes as KeyScope[],
    ipAllowlist: ipAllowlist.length ? ipAllowlist : null,
    expiresAt: expiresAt as string | null,
  });
  return { key, record };
}

/**
 * The keys that work on a project: its own, and the instance keys, which work on every project
 * (with `projectId` null: the instance keys, and no own keys).
 */
export async function listKeys(
  deps: KeyOperationDeps,
  projectId: string | null,
): Promise<{ keys: ApiKey[]; instanceKeys: ApiKey[] }> {
  await requireKeyOwner(deps, projectId);
  const instanceKeys = await deps.store.apiKeys.list(null);
  return { keys: projectId === null ? instanceKeys : await deps.store.apiKeys.list(projectId), instanceKeys };
}

/**
 * Revokes a key of its owner: a project's key only through its project, an instance key only as
 * one. @throws AppError `project_not_found`, `not_found`
 */
export async function revokeKey(
  deps: KeyOperationDeps,
  projectId: string | null,
  keyId: string,
): Promise<void> {
  await requireKeyOwner(deps, projectId);
  if (!(await deps.store.apiKeys.revoke(projectId, keyId)))
    throw new AppError(
      'not_found',
      projectId === null
        ? `There is no instance key ${keyId}.`
        : `There is no key ${keyId} in project ${projectId}.`,
    );
}
