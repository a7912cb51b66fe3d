import { describe, expect, it } from 'vitest';
import type { RecordedStep, SpendReservation } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import { liveUsage, stepReservations } from './usage.js';

const lease = { jobId: 'j1', attempt: 1, owner: 'w1' };
const usage = (steps: number) => ({
  inputTokens: 10 * steps,
  outputTokens: steps,
  cachedInputTokens: 0,
  steps,
  costUsd: null,
});

/** A store that answers reservations with `answers` in turn and keeps the steps recorded. */
function fakeStore(answers: SpendReservation[]) {
  const steps: RecordedStep[] = [];
  const queue = {
    reserveSpend: async () => answers.shift() as SpendReservation,
    recordStep: async (_lease: unknown, step: RecordedStep) => {
      steps.push(step);
    },
    appendEvents: async () => {},
  };
  return { store: { queue } as unknown as Store, steps };
}

describe("a run's steps and its spend reservations", () => {
  it('gives a reservation back at the first step, then only after a step a budget reserved for', async () => {
    const none = { granted: true, spentUsd: 0, reservedUsd: 0, budgetUsd: null };
    const held = { granted: true, spentUsd: 0, reservedUsd: 0.5, budgetUsd: 1 };
    const { store, steps } = fakeStore([none, none, held, none]);
    const live = liveUsage(store, lease);
    const reserve = stepReservations(store, lease, live);
    for (let step = 1; step <= 4; step++) {
      expect(await reserve(0.5)).toBeNull();
      await live.step([{ type: 'usage', data: usage(step) }], null);
    }
    // A reservation left from before the run goes back at its first record; without a budget no
    // later step holds one, until a budget set meanwhile made `reserveSpend` write one.
    expect(steps.map((step) => step.releaseReservation)).toEqual([true, false, true, false]);
    expect(steps.map((step) => step.added?.steps)).toEqual([1, 1, 1, 1]);
  });

  it('records a step without usage with its progress, and gives nothing back for it', async () => {
    const { store, steps } = fakeStore([]);
    const live = liveUsage(store, lease);
    const progress = { from: 0, messages: ['{}'], deliveredThrough: null, changes: null };
    await live.step([], progress);
    expect(steps).toEqual([{ added: null, events: [], progress, releaseReservation: true }]);
  });
});
