/**
 * What models cost, so that a job's `usage.costUsd` can grow with each step and budgets can stop
 * a run (docs/costs.md). USD per million tokens: fresh input, input read from the
 * provider's prompt cache, input written to it (Anthropic charges a premium; OpenAI caches for
 * free), and output. Matched by the longest prefix of the model's name, as dated snapshots share
 * their family's price. `AGENTJOBS_MODEL_PRICES` adds models or overrides these, by whole model id.
 * A model with no price has `costUsd` null: an unknown price is not a price of zero.
 */
import type { PriceOverrides } from '../config/config.js';
import { DEMO_MODEL_ID, parseModelId } from '../domain/model-id.js';

export type { PriceOverrides } from '../config/config.js';

/** When the table was last checked against the providers' published list prices. */
export const PRICES_DATE = '2025-11';

/** A model's price, USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Input tokens read from the prompt cache. */
  cachedInput: number;
  /** Input tokens written to the prompt cache. */
  cacheWrite: number;
  output: number;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  cachedInput: input / 10,
  cacheWrite: input * 1.25,
  output,
});
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({
  input,
  cachedInput,
  cacheWrite: input,
  output,
});

const PRICES: Record<string, Record<string, ModelPrice>> = {
  anthropic: {
    'claude-opus-4': anthropic(15, 75),
    'claude-opus-4-5': anthropic(5, 25),
    'claude-sonnet-4': anthropic(3, 15),
    'claude-3-7-sonnet': anthropic(3, 15),
    'claude-3-5-sonnet': anthropic(3, 15),
    'claude-haiku-4-5': anthropic(1, 5),
    'claude-3-5-haiku': anthropic(0.8, 4),
    'claude-3-haiku': anthropic(0.25, 1.25),
  },
  openai: {
    'gpt-5': openai(1.25, 0.125, 10),
    'gpt-5-mini': openai(0.25, 0.025, 2),
    'gpt-5-nano': openai(0.05, 0.005, 0.4),
    'gpt-4.1': openai(2, 0.5, 8),
    'gpt-4.1-mini': openai(0.4, 0.1, 1.6),
    'gpt-4.1-nano': openai(0.1, 0.025, 0.4),
    'gpt-4o': openai(2.5, 1.25, 10),
    'gpt-4o-mini': openai(0.15, 0.075, 0.6),
    o3: openai(2, 0.5, 8),
    'o4-mini': openai(1.1, 0.275, 4.4),
  },
};

/** The price of `modelId` (`provider:model`): the overrides' entry for it, else the table's, else null. */
export function priceOf(modelId: string | null, overrides: PriceOverrides = {}): ModelPrice | null {
  if (!modelId) return null;
  // The demo model calls no provider: its runs cost nothing, and say so rather than "unknown".
  if (modelId === DEMO_MODEL_ID) return { input: 0, output: 0, cachedInput: 0, cacheWrite: 0 };
  const given = overrides[modelId];
  if (given) {
    return {
      input: given.input,
      output: given.output,
      cachedInput: given.cachedInput ?? given.input,
      cacheWrite: given.cacheWrite ?? given.input,
    };
  }
  const parsed = parseModelId(modelId);
  const table = parsed ? PRICES[parsed.provider] : undefined;
  if (!parsed || !table) return null;
  const prefix = Object.keys(table)
    .filter((key) => parsed.model === key || parsed.model.startsWith(`${key}-`))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? (table[prefix] ?? null) : null;
}

/** What one call cost: its token counts by kind, at `price`. */
export function costOf(
  tokens: { fresh: number; cacheRead: number; cacheWrite: number; output: number },
  price: ModelPrice,
): number {
  const micro =
    tokens.fresh * price.input +
    tokens.cacheRead * price.cachedInput +
    tokens.cacheWrite * price.cacheWrite +
    tokens.output * price.output;
  return micro / 1_000_000;
}

/**
 * The most one model call can cost: `inputTokens` at the dearest input price (a cache write, with
 * Anthropic) and `outputTokens`, the most the model may write, at the output price.
 */
export function stepCeiling(
  tokens: { inputTokens: number; outputTokens: number },
  price: ModelPrice,
): number {
  const input = Math.max(price.input, price.cachedInput, price.cacheWrite);
  const micro = tokens.inputTokens * input + tokens.outputTokens * price.output;
  // Rounded up to a millionth of a dollar, so it stays a ceiling.
  return Math.ceil(micro) / 1_000_000;
}
