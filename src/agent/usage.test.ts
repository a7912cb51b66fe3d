import type { LanguageModelUsage } from 'ai';
import { describe, expect, it } from 'vitest';
import { priceOf } from './prices.js';
import { usageMeter } from './usage.js';

const step = (input: number, output: number, details: Partial<LanguageModelUsage['inputTokenDetails']>) =>
  ({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    inputTokenDetails: {
      noCacheTokens: undefined,
      cacheReadTokens: undefined,
      cacheWriteTokens: undefined,
      ...details,
    },
    outputTokenDetails: { textTokens: output, reasoningTokens: undefined },
  }) as LanguageModelUsage;

describe('priceOf', () => {
  it('finds a model family by prefix, prefers the longest, and takes overrides by whole id', () => {
    expect(priceOf('anthropic:claude-sonnet-4-5-20250929')).toMatchObject({
      input: 3,
      cachedInput: 0.3,
      cacheWrite: 3.75,
      output: 15,
    });
    expect(priceOf('openai:gpt-5-mini')?.input).toBe(0.25);
    expect(priceOf('openai:gpt-5')?.input).toBe(1.25);
    expect(priceOf('openai-compatible:llama3')).toBeNull();
    expect(
      priceOf('openai-compatible:llama3', { 'openai-compatible:llama3': { input: 0.1, output: 0.2 } }),
    ).toEqual({
      input: 0.1,
      output: 0.2,
      cachedInput: 0.1,
      cacheWrite: 0.1,
    });
    expect(priceOf(null)).toBeNull();
  });
});

describe('usageMeter', () => {
  it('prices Anthropic’s fresh input, cache reads and cache writes apart', () => {
    const meter = usageMeter(priceOf('anthropic:claude-sonnet-4-5'));
    meter.add(step(10_000, 1000, { noCacheTokens: 1000, cacheReadTokens: 8000, cacheWriteTokens: 1000 }));
    // 1000 × 3 + 8000 × 0.3 + 1000 × 3.75 + 1000 × 15, per million
    expect(meter.totals).toEqual({
      inputTokens: 10_000,
      outputTokens: 1000,
      cachedInputTokens: 8000,
      steps: 1,
      costUsd: 0.02415,
    });
  });

  it('counts OpenAI’s cached tokens, which are part of its input count', () => {
    const meter = usageMeter(priceOf('openai:gpt-4o'));
    meter.add(step(10_000, 100, { cacheReadTokens: 6000 }));
    // 4000 × 2.5 + 6000 × 1.25 + 100 × 10, per million
    expect(meter.totals).toMatchObject({ cachedInputTokens: 6000, costUsd: 0.0185 });
  });

  it('keeps the cost null when the price is unknown', () => {
    const meter = usageMeter(null);
    meter.add(step(100, 10, {}));
    expect(meter.totals).toEqual({
      inputTokens: 100,
      outputTokens: 10,
      cachedInputTokens: 0,
      steps: 1,
      costUsd: null,
    });
  });
});
