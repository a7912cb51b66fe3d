import type { ApiKey, ApiKeyWithHash, NewApiKey } from '../domain/api-key.js';
import { ID_PATTERN, newId } from '../domain/ids.js';
import { displayPrefix, hashKey, type KeyScope } from '../domain/keys.js';
import type { Db } from './db.js';
import type { ApiKeyRow } from './schema.js';

/** Writing "last used" on every request would turn each GET into a write; once a minute is plenty. */
const TOUCH_INTERVAL_MS = 60_000;
/** Ids per query of `findByIds`, well under the bound parameters either database accepts. */
const IDS_PER_QUERY = 500;

function toApiKey(row: ApiKeyRow): ApiKeyWithHash {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes.split(',').filter(Boolean) as KeyScope[],
    ipAllowlist: row.ip_allowlist ? (JSON.parse(row.ip_allowlist) as string[]) : null,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    keyHash: row.key_hash,
  };
}

const withoutHash = ({ keyHash: _hash, ...key }: ApiKeyWithHash): ApiKey => key;

export function apiKeyQueries(db: Db) {
  return { ...keyWrites(db), ...keyReads(db) };
}

/** Looking keys up: by digest (every request), by id, by owner. */
function keyReads(db: Db) {
  return {
    /**
     * The key with this digest. Every authenticated request reads its key here, through the
     * unique index on the digest and nothing kept from an earlier read, so a revocation by any
     * process (the dashboard, the CLI, another API instance) holds from the next request on.
     */
    async findByHash(keyHash: string): Promise<ApiKeyWithHash | undefined> {
      const row = await db
        .read()
        .selectFrom('api_keys')
        .selectAll()
        .where('key_hash', '=', keyHash)
        .executeTakeFirst();
      return row && toApiKey(row);
    },

    /**
     * The keys with these ids (by primary key; an unknown id is left out): how open event streams
     * learn that their key was revoked, one read for every key that holds one.
     */
    async findByIds(ids: readonly string[]): Promise<ApiKey[]> {
      const keys: ApiKey[] = [];
      for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
        const rows = await db
          .read()
          .selectFrom('api_keys')
          .selectAll()
          .where('id', 'in', ids.slice(start, start + IDS_PER_QUERY))
          .execute();
        for (const row of rows) keys.push(withoutHash(toApiKey(row)));
      }
      return keys;
    },

    /** A project's keys, or with null the instance keys (not those of every project). */
    async list(projectId: string | null): Promise<ApiKey[]> {
      const rows = await db
        .read()
        .selectFrom('api_keys')
        .selectAll()
        .where('project_id', projectId === null ? 'is' : '=', projectId)
        .orderBy('id', 'desc')
        .execute();
      return rows.map((row) => withoutHash(toApiKey(row)));
    },
  };
}

/** Creating and revoking keys, and recording their use. */
function keyWrites(db: Db) {
  const { kysely } = db;
  /** When this process last wrote each key's `last_used_at` (ms), so that it writes once a minute. */
  const touchedAt = new Map<string, number>();
  return {
    async create(input: NewApiKey): Promise<ApiKey> {
      const row: ApiKeyRow = {
        id: newId(),
        project_id: input.projectId,
        name: input.name,
        prefix: displayPrefix(input.key),
        key_hash: hashKey(input.key),
        scopes: input.scopes.join(','),
        ip_allowlist: input.ipAllowlist?.length ? JSON.stringify(input.ipAllowlist) : null,
        expires_at: input.expiresAt ?? null,
        created_at: new Date().toISOString(),
        last_used_at: null,
        revoked_at: null,
      };
      await kysely.insertInto('api_keys').values(row).execute();
      return withoutHash(toApiKey(row));
    },

    /**
     * Marks a key revoked. Returns false when there is no such key in that project (with null:
     * no such instance key).
     */
    async revoke(projectId: string | null, id: string): Promise<boolean> {
      // An id we never issued names no key; PostgreSQL would refuse some strings (a NUL byte).
      if (!ID_PATTERN.test(id)) return false;
      const ofOwner = projectId === null ? 'is' : '=';
      const result = await kysely
        .updateTable('api_keys')
        .set({ revoked_at: new Date().toISOString() })
        .where('id', '=', id)
        .where('project_id', ofOwner, projectId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) return true;
      const exists = await db
        .read()
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', id)
        .where('project_id', ofOwner, projectId)
        .executeTakeFirst();
      return exists !== undefined;
    },

    /**
     * Records use, at most once a minute per key. Every authenticated request calls this, so the
     * check is one map read and a subtraction, with no date parsing, and no promise is made when
     * there is nothing to write: undefined then, else the write's promise.
     */
    touch(key: ApiKey, now = Date.now()): Promise<void> | undefined {
      const last = touchedAt.get(key.id) ?? (key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0);
      if (now - last < TOUCH_INTERVAL_MS) return undefined;
      if (touchedAt.size >= 10_000) touchedAt.clear();
      touchedAt.set(key.id, now);
      return kysely
        .updateTable('api_keys')
        .set({ last_used_at: new Date(now).toISOString() })
        .where('id', '=', key.id)
        .execute()
        .then(() => undefined);
    },
  };
}
