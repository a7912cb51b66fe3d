import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db.js';

/** A signed-in browser, as the dashboard sees it. */
export interface AdminSession {
  /** SHA-256 of the cookie value: what is stored and what CSRF tokens are bound to. */
  id: string;
  createdAt: string;
  expiresAt: string;
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The dashboard's sessions and server-wide settings. Sessions live in the database, so any API
 * process behind a load balancer accepts a cookie that another one issued.
 */
export function adminQueries(db: Db) {
  const { kysely } = db;
  let sweeps = 0;
  return {
    /** Starts a session; returns the cookie value (only its digest is stored). */
    async createSession(ttlMs: number, now = Date.now()): Promise<{ token: string; session: AdminSession }> {
      const token = randomBytes(32).toString('base64url');
      const session = {
        id: digest(token),
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + ttlMs).toISOString(),
      };
      await kysely
        .insertInto('admin_sessions')
        .values({ id: session.id, created_at: session.createdAt, expires_at: session.expiresAt })
        .execute();
      // Expired sessions are dead weight; a sign-in now and then is a fine moment to drop them.
      if (++sweeps % 20 === 1)
        await kysely.deleteFrom('admin_sessions').where('expires_at', '<', session.createdAt).execute();
      return { token, session };
    },

    /** The session of a cookie value: `expired` when it ran out, undefined when unknown. */
    async findSession(
      token: string,
      now = Date.now(),
    ): Promise<{ session: AdminSession; expired: boolean } | undefined> {
      const row = await db
        .read()
        .selectFrom('admin_sessions')
        .selectAll()
        .where('id', '=', digest(token))
        .executeTakeFirst();
      if (!row) return undefined;
      const session = { id: row.id, createdAt: row.created_at, expiresAt: row.expires_at };
      return { session, expired: Date.parse(row.expires_at) <= now };
    },

    async deleteSession(token: string): Promise<void> {
      await kysely.deleteFrom('admin_sessions').where('id', '=', digest(token)).execute();
    },

    /** Ends every session, e.g. after the password changed. */
    async deleteAllSessions(): Promise<void> {
      await kysely.deleteFrom('admin_sessions').execute();
    },

    async getSetting(key: string): Promise<string | undefined> {
      const row = await db
        .read()
        .selectFrom('settings')
        .select('value')
        .where('key', '=', key)
        .executeTakeFirst();
      return row?.value;
    },

    /** Sets a value; with `onlyIfMissing`, keeps an existing one and returns false. */
    async putSetting(
      key: string,
      value: string,
      options: { onlyIfMissing?: boolean } = {},
    ): Promise<boolean> {
      const updatedAt = new Date().toISOString();
      const result = await kysely
        .insertInto('settings')
        .values({ key, value, updated_at: updatedAt })
        .onConflict((oc) =>
          options.onlyIfMissing
            ? oc.column('key').doNothing()
            : oc.column('key').doUpdateSet({ value, updated_at: updatedAt }),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
  };
}
