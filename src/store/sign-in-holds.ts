import type { Db } from './db.js';

/** How a client's sign-in failures hold it back: the policy the dashboard gives the store. */
export interface HoldPolicy {
  /** How long a client waits after its `failures`-th wrong password (0: not at all). */
  holdMs(failures: number): number;
  /** How long after its hold ends a client's failures are forgotten. */
  forgetMs: number;
}

/** The answer to "may this client try a password now?". */
export type AttemptTurn =
  | {
      allowed: true;
      /**
       * Hands the attempt back when the password was right: the client's failures are as they
       * were before it (`clear`: forgotten).
       */
      undo(options?: { clear?: boolean }): Promise<void>;
    }
  | { allowed: false; retryAfterMs: number };

const EPOCH = new Date(0).toISOString();

/**
 * Sign-in failures per client (a device or an address), with the hold each one earns, in the
 * `rate_limits` table so every API process sees them. A row's `count` is the client's failures and
 * its `expires_at` the moment they are forgotten, so the routine sweep of that table removes them;
 * the hold ends `forgetMs` before it.
 *
 * An attempt is counted as a failure before the password is checked, in one transaction that
 * locks the client's row: concurrent posts from one client cannot all pass the same free turn.
 * A right password then hands its turn back.
 */
export function signInHoldQueries(db: Db) {
  return {
    /** Takes a turn for `key`, or says how long it is held. */
    takeTurn(key: string, policy: HoldPolicy, now = Date.now()): Promise<AttemptTurn> {
      return db.write(async (trx) => {
        await trx
          .insertInto('rate_limits')
          .values({ key, count: 0, expires_at: EPOCH })
          .onConflict((oc) => oc.column('key').doNothing())
          .execute();
        const row = await db
          .lockForUpdate(trx.selectFrom('rate_limits').select(['count', 'expires_at']).where('key', '=', key))
          .executeTakeFirstOrThrow();
        const forgetAt = Date.parse(row.expires_at);
        const failures = forgetAt > now ? Number(row.count) : 0;
        const heldUntil = forgetAt - policy.forgetMs;
        if (failures > 0 && heldUntil > now) return { allowed: false, retryAfterMs: heldUntil - now };
        const taken = {
          count: failures + 1,
          expires_at: new Date(now + policy.holdMs(failures + 1) + policy.forgetMs).toISOString(),
        };
        await trx.updateTable('rate_limits').set(taken).where('key', '=', key).execute();
        const before = failures > 0 ? { count: failures, expires_at: row.expires_at } : null;
        return {
          allowed: true,
          undo: async ({ clear = false } = {}) => {
            if (clear) {
              await db.kysely.deleteFrom('rate_limits').where('key', '=', key).execute();
              return;
            }
            // Only if nothing counted since, so a turn handed back never erases a later failure.
            if (before) {
              await db.kysely
                .updateTable('rate_limits')
                .set(before)
                .where('key', '=', key)
                .where('count', '=', taken.count)
                .where('expires_at', '=', taken.expires_at)
                .execute();
            } else {
              await db.kysely
                .deleteFrom('rate_limits')
                .where('key', '=', key)
                .where('count', '=', taken.count)
                .where('expires_at', '=', taken.expires_at)
                .execute();
            }
          },
        };
      });
    },
  };
}
