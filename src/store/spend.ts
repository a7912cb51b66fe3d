/**
 * What jobs spend, and the per-project daily budget (docs/costs.md). A run's usage
 * reaches its job step by step (`queue.recordStep`) and when it ends (complete, fail); each time,
 * its cost is added to the project's spend of the day (UTC) in the same transaction. New runs of a
 * project past its budget are refused, inside the transaction that would start them, until the
 * day ends.
 *
 * Runs that go at once share the budget through reservations: before each model call a run of a
 * project with a budget reserves the step's worst case on the day's row (`queue.reserveSpend`;
 * without a budget it writes nothing), which is granted only
 * while what was spent plus what steps in flight have reserved is under the budget; the step's
 * real cost then takes the reservation's place. So however many runs go at once, the day ends at
 * most one step's worst case over the budget. A run holds one reservation at a time, given back
 * when its step is settled, when it ends (complete, fail, release, archive) or when its lease is
 * reclaimed, so a crashed worker's reservation blocks nothing for longer than its lease.
 */
import { sql } from 'kysely';
import { AppError } from '../domain/errors.js';
import type { RunUsage } from '../domain/job.js';
import type { Db, Queryable, Transaction } from './db.js';

/** The UTC day of `at`, as the spend table keys it. */
export const dayOf = (at: string) => at.slice(0, 10);

/** Seconds from `at` to the end of its UTC day (at least 1). */
export function secondsToDayEnd(at: Date): number {
  const end = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
  return Math.max(1, Math.ceil((end - at.getTime()) / 1000));
}

/** Adds `usage` to the job's totals and its cost to the project's spend of the day. */
export async function addUsage(trx: Transaction, jobId: string, usage: RunUsage, at: string): Promise<void> {
  const cost = usage.costUsd ?? null;
  const job = await trx
    .updateTable('jobs')
    .set((eb) => ({
      input_tokens: eb('input_tokens', '+', usage.inputTokens),
      output_tokens: eb('output_tokens', '+', usage.outputTokens),
      cached_input_tokens: eb('cached_input_tokens', '+', usage.cachedInputTokens ?? 0),
      steps: eb('steps', '+', usage.steps),
      ...(cost === null ? {} : { cost_usd: eb(eb.fn.coalesce('cost_usd', eb.lit(0)), '+', cost) }),
    }))
    .where('id', '=', jobId)
    .returning('project_id')
    .executeTakeFirst();
  if (cost === null || cost <= 0 || !job) return;
  await trx
    .insertInto('project_daily_spend')
    .values({ project_id: job.project_id, day: dayOf(at), cost_usd: cost })
    .onConflict((conflict) =>
      conflict
        .columns(['project_id', 'day'])
        .doUpdateSet((eb) => ({ cost_usd: eb('project_daily_spend.cost_usd', '+', cost) })),
    )
    .execute();
}

/** Gives back the job's reservation, if it holds one (its step settled, or its run over). */
export async function releaseReservation(trx: Transaction, jobId: string): Promise<void> {
  const held = await trx
    .deleteFrom('spend_reservations')
    .where('job_id', '=', jobId)
    .returning(['project_id', 'day', 'cost_usd'])
    .executeTakeFirst();
  if (!held) return;
  const cost = Number(held.cost_usd);
  await trx
    .updateTable('project_daily_spend')
    // Never below zero, whatever floating-point sums leave behind.
    .set({
      reserved_usd: sql<number>`case when reserved_usd > ${cost} then reserved_usd - ${cost} else 0 end`,
    })
    .where('project_id', '=', held.project_id)
    .where('day', '=', held.day)
    .execute();
}

/** What the project spent on the UTC day of `at`, and its budget (null: none). */
export async function dailySpend(
  executor: Queryable,
  projectId: string,
  at: string,
): Promise<{ spentUsd: number; budgetUsd: number | null }> {
  const row = await executor
    .selectFrom('projects')
    .leftJoin('project_daily_spend as spend', (join) =>
      join.onRef('spend.project_id', '=', 'projects.id').on('spend.day', '=', dayOf(at)),
    )
    .select(['projects.daily_budget_usd as budget', 'spend.cost_usd as spent'])
    .where('projects.id', '=', projectId)
    .executeTakeFirst();
  return {
    spentUsd: row?.spent == null ? 0 : Number(row.spent),
    budgetUsd: row?.budget == null ? null : Number(row.budget),
  };
}

/** Throws 429 `budget_exceeded` (retry at the day's end) when the project spent its daily budget. */
export async function refuseOverDailyBudget(trx: Transaction, projectId: string, at: Date): Promise<void> {
  const { spentUsd, budgetUsd } = await dailySpend(trx, projectId, at.toISOString());
  if (budgetUsd === null || spentUsd < budgetUsd) return;
  throw new AppError(
    'budget_exceeded',
    `This project spent $${spentUsd.toFixed(2)} of its daily budget of $${budgetUsd.toFixed(2)} today; new runs start again at 00:00 UTC.`,
    { retryAfterSeconds: secondsToDayEnd(at) },
  );
}

export function spendQueries(db: Db) {
  return {
    /** The project's spend today (UTC) and its daily budget. */
    today: (projectId: string) => dailySpend(db.read(), projectId, new Date().toISOString()),
  };
}
