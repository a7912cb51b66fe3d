/**
 * A run's reservation against its project's daily budget, before each model call (store/spend.ts
 * says why). The grant is one conditional upsert of the day's row, so two runs can never both
 * see room that only one of them may take: PostgreSQL evaluates the `where` of `on conflict do
 * update` on the row it has locked, as it stands after any concurrent update; SQLite runs one
 * writer at a time.
 */

import type { Db } from '../db.js';
import { dayOf, releaseReservation } from '../spend.js';
import { fence, type Lease } from './lease.js';

/** The answer to a reservation, with the figures a refusal is explained by. */
export interface SpendReservation {
  /** Whether the step may go; always true for a project without a daily budget. */
  granted: boolean;
  /** The project's spend today (UTC). */
  spentUsd: number;
  /** What steps in flight have reserved today, this one included when granted. */
  reservedUsd: number;
  /** The project's daily budget; null: none, and nothing was reserved. */
  budgetUsd: number | null;
}

/** The answer for a project without a daily budget: granted, and nothing reserved. */
const NO_BUDGET: SpendReservation = Object.freeze({
  granted: true,
  spentUsd: 0,
  reservedUsd: 0,
  budgetUsd: null,
});

export function reserveQueries(db: Db) {
  return {
    /**
     * Replaces the run's reservation with one of `costUsd` (the step's worst case) on today's row,
     * if what the project spent and reserved today is under its budget. Throws `LeaseLostError`
     * when the run no longer holds the job; without a budget nothing is written, so a lost lease
     * shows at the step's `recordStep` instead.
     */
    async reserveSpend(lease: Lease, costUsd: number): Promise<SpendReservation> {
      // Most projects have no daily budget: their steps are granted on a read, without a write
      // per step. A reservation left from a budget removed since is given back when its step is
      // settled (`recordStep`); a budget set since is seen from the next step.
      const unlimited = await db
        .read()
        .selectFrom('jobs')
        .innerJoin('projects', 'projects.id', 'jobs.project_id')
        .select('projects.daily_budget_usd as budget')
        .where('jobs.id', '=', lease.jobId)
        .executeTakeFirst();
      if (unlimited && unlimited.budget === null) return NO_BUDGET;
      return db.write(async (trx) => {
        await fence(db, trx, lease);
        await releaseReservation(trx, lease.jobId);
        const at = new Date().toISOString();
        const day = dayOf(at);
        const { project_id: projectId, budget } = await trx
          .selectFrom('jobs')
          .innerJoin('projects', 'projects.id', 'jobs.project_id')
          .select(['jobs.project_id', 'projects.daily_budget_usd as budget'])
          .where('jobs.id', '=', lease.jobId)
          .executeTakeFirstOrThrow();
        if (budget === null) return NO_BUDGET;
        const budgetUsd = Number(budget);
        const reserved =
          budgetUsd <= 0
            ? undefined
            : await trx
                .insertInto('project_daily_spend')
                .values({ project_id: projectId, day, cost_usd: 0, reserved_usd: costUsd })
                .onConflict((conflict) =>
                  conflict
                    .columns(['project_id', 'day'])
                    .doUpdateSet((eb) => ({
                      reserved_usd: eb(
                        'project_daily_spend.reserved_usd',
                        '+',
                        eb.ref('excluded.reserved_usd'),
                      ),
                    }))
                    .where((eb) =>
                      eb(
                        eb('project_daily_spend.cost_usd', '+', eb.ref('project_daily_spend.reserved_usd')),
                        '<',
                        budgetUsd,
                      ),
                    ),
                )
                .returning(['cost_usd', 'reserved_usd'])
                .executeTakeFirst();
        if (reserved) {
          await trx
            .insertInto('spend_reservations')
            .values({ job_id: lease.jobId, project_id: projectId, day, cost_usd: costUsd, created_at: at })
            .execute();
          return {
            granted: true,
            spentUsd: Number(reserved.cost_usd),
            reservedUsd: Number(reserved.reserved_usd),
            budgetUsd,
          };
        }
        const row = await trx
          .selectFrom('project_daily_spend')
          .select(['cost_usd', 'reserved_usd'])
          .where('project_id', '=', projectId)
          .where('day', '=', day)
          .executeTakeFirst();
        return {
          granted: false,
          spentUsd: Number(row?.cost_usd ?? 0),
          reservedUsd: Number(row?.reserved_usd ?? 0),
          budgetUsd,
        };
      });
    },
  };
}
