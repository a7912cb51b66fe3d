/**
 * A run's usage, added up step by step from what the provider reports: tokens in (cached ones
 * included, as providers count them), tokens read from the prompt cache, tokens out, steps, and
 * what it cost at the model's price (null when the price is unknown).
 *
 * Providers split input differently: Anthropic reports fresh input, cache reads and cache writes
 * apart (the AI SDK sums them into `inputTokens`); OpenAI reports all input with the cached part
 * inside it. The SDK's `inputTokenDetails` gives both the same shape; where a provider leaves the
 * fresh part out, it is what remains of the total.
 */
import type { LanguageModelUsage } from 'ai';
import { costOf, type ModelPrice } from './prices.js';

/** A run's totals; the job adds them to its own. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider read from its prompt cache. */
  cachedInputTokens: number;
  steps: number;
  /** USD; null when the model's price is unknown. */
  costUsd: number | null;
}

/** Sums a run's steps at `price`. */
export function usageMeter(price: ModelPrice | null) {
  const totals: RunUsage = {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    steps: 0,
    costUsd: price ? 0 : null,
  };
  return {
    /** The running totals (the same object throughout). */
    totals,
    /** Adds one finished step. */
    add(usage: LanguageModelUsage) {
      const input = usage.inputTokens ?? 0;
      const output = usage.outputTokens ?? 0;
      const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0;
      const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
      const fresh = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, input - cacheRead - cacheWrite);
      totals.steps += 1;
      totals.inputTokens += input;
      totals.outputTokens += output;
      totals.cachedInputTokens += cacheRead;
      if (price && totals.costUsd !== null) {
        // Rounded to a millionth of a dollar, so sums stay free of floating-point dust.
        const cost = costOf({ fresh, cacheRead, cacheWrite, output }, price);
        totals.costUsd = Math.round((totals.costUsd + cost) * 1e6) / 1e6;
      }
    },
  };
}
