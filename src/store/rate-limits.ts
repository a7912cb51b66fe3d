import { sql } from 'kysely';
import type { Db } from './db.js';

export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

/**
 * Fixed-window counters in the database, so a budget holds across every API process that shares
 * it. One upsert per counted request.
 */
export function rateLimitQueries(db: Db) {
  const { kysely } = db;
  let hitsSinceSweep = 0;
  return {
    async hit(bucket: string, windowMs: number, now = Date.now()): Promise<RateLimitHit> {
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const windowEnd = windowStart + windowMs;
      const row = await db.writeStatement((executor) =>
        executor
          .insertInto('rate_limits')
          .values({
            key: `${bucket}@${windowStart}`,
            count: 1,
            expires_at: new Date(windowEnd).toISOString(),
          })
          .onConflict((conflict) =>
            conflict.column('key').doUpdateSet((eb) => ({ count: eb('rate_limits.count', '+', sql.lit(1)) })),
          )
          .returning('count')
          .executeTakeFirst(),
      );
      if (!row) throw new Error(`the rate-limit upsert for ${bucket} returned no row`);
      // Old windows are dead weight; sweeping now and then keeps the table small without a timer.
      if (++hitsSinceSweep >= 500) {
        hitsSinceSweep = 0;
        await kysely
          .deleteFrom('rate_limits')
          .where('expires_at', '<', new Date(now).toISOString())
          .execute();
      }
      return { count: Number(row.count), ttlMs: windowEnd - now };
    },
  };
}
