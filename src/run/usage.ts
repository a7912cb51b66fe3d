/**
 * What a run may spend and what it has spent (docs/costs.md):
 * - its price and cost limit, `AGENTJOBS_MAX_JOB_COST_USD`;
 * - before each model call, a reservation of the call's worst case against the project's daily
 *   budget (`store.queue.reserveSpend`), shared with the project's other runs, so that runs going
 *   at once cannot each spend what is left of the day;
 * - its usage recorded on the job after every step (`store.queue.recordStep`), so the job's cost is
 *   live and the daily budget sees runs still going; complete and fail then add only the remainder,
 *   which is nothing for the real agent and everything for an agent that reports no steps.
 */
import type { Config } from '../config/config.js';
import type { NewEvent } from '../domain/events.js';
import type { Job, RunUsage } from '../domain/job.js';
import type { Lease, ProgressSave } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import { type AgentEventSink, type ModelPrice, maxOutputOf, priceOf } from './agent-port.js';

/** The model's price, the run's cost limit (null: none) and the most the model writes in a step. */
export function spending(
  config: Pick<Config, 'modelPrices' | 'jobLimits' | 'agent'>,
  job: Job,
): { price: ModelPrice | null; maxCostUsd: number | null; maxOutputTokens: number } {
  return {
    price: priceOf(job.model, config.modelPrices),
    maxCostUsd: config.jobLimits.maxCostUsd,
    maxOutputTokens: maxOutputOf(job.model, config.agent.contextTokens),
  };
}

/** The agent's `reserveStep`: a step goes while the project's day has room (store/spend.ts). */
export function stepReservations(store: Store, lease: Lease, usage: Pick<LiveUsage, 'reserved'>) {
  return async (ceilingUsd: number): Promise<string | null> => {
    const answer = await store.queue.reserveSpend(lease, ceilingUsd);
    // Only a project with a budget writes a reservation; the step's record gives it back.
    if (answer.budgetUsd !== null) usage.reserved();
    if (answer.granted) return null;
    const usd = (amount: number) => `$${amount.toFixed(2)}`;
    const budget = answer.budgetUsd ?? 0;
    const when =
      answer.spentUsd >= budget
        ? 'Runs start again at 00:00 UTC.'
        : 'What those steps leave unspent can be used once they finish.';
    return `This project reached its daily budget of ${usd(budget)}: ${usd(answer.spentUsd)} spent today and ${usd(answer.reservedUsd)} reserved by steps of its runs in flight. ${when}`;
  };
}

/** The run's usage as its steps record it (`liveUsage`). */
export type LiveUsage = ReturnType<typeof liveUsage>;

/** The run's event sink, recording `usage` events on the job as they come; and what is left to add. */
export function liveUsage(store: Store, lease: Lease) {
  let recorded: Required<RunUsage> = {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    steps: 0,
    costUsd: null,
  };
  // Whether the run may hold a spend reservation: a reservation left by anything before this run's
  // first record is given back there, and after that only one `reserveSpend` wrote is.
  let mayHoldReservation = true;
  const minus = (usage: RunUsage, before: Required<RunUsage>): RunUsage => ({
    inputTokens: usage.inputTokens - before.inputTokens,
    outputTokens: usage.outputTokens - before.outputTokens,
    cachedInputTokens: (usage.cachedInputTokens ?? 0) - before.cachedInputTokens,
    steps: usage.steps - before.steps,
    costUsd: usage.costUsd == null ? null : Math.round((usage.costUsd - (before.costUsd ?? 0)) * 1e6) / 1e6,
  });
  // A step's events are written in one transaction; with its `usage` event, together with the
  // usage the step added to the job, and with the run's progress after the step.
  const record = async (events: readonly NewEvent[], progress: ProgressSave | null) => {
    const totals = events.findLast((event) => event.type === 'usage')?.data as RunUsage | undefined;
    if (!totals && !progress) return store.queue.appendEvents(lease, events);
    const added = totals ? minus(totals, recorded) : null;
    await store.queue.recordStep(lease, {
      added,
      events,
      progress,
      releaseReservation: mayHoldReservation,
    });
    if (!totals) return;
    mayHoldReservation = false;
    recorded = {
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cachedInputTokens: totals.cachedInputTokens ?? 0,
      steps: totals.steps,
      costUsd: totals.costUsd ?? null,
    };
  };
  const sink: AgentEventSink = (type, data) => record([{ type, data } as NewEvent], null);
  return {
    sink,
    /** Records a finished step's events and the run's progress after it (`onStep`). */
    step: (events: readonly NewEvent[], progress: ProgressSave | null) => record(events, progress),
    /** Tells that `reserveSpend` may have written a reservation, for the next step's record to give back. */
    reserved: () => {
      mayHoldReservation = true;
    },
    /** The part of a run's final `usage` not recorded yet. */
    remainder: (usage: RunUsage): RunUsage => minus(usage, recorded),
  };
}
