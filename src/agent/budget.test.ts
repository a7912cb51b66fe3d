import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  callsOf,
  callTools,
  createFixture,
  type Fixture,
  scriptedModel,
  startAgentOver,
} from '../../test/support/agent-fixture.js';
import { AgentError, type AgentLimits } from './loop.js';
import { type ModelPrice, priceOf, stepCeiling } from './prices.js';
import { maxOutputOf } from './windows.js';

const LIMITS: AgentLimits = { maxSteps: 20, maxWallMs: 10_000, maxTokens: 1_000_000, maxFilesChanged: 10 };
const PRICE: ModelPrice = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 };

let fixture: Fixture;
beforeAll(async () => {
  fixture = await createFixture({ files: { 'README.md': '# Demo\nHello world\n' } });
});
afterAll(async () => {
  await fixture.cleanup();
});

const turns = () => [
  callTools([['read_file', { path: 'README.md' }]]),
  callTools([['write_file', { path: 'docs/a.md', content: '# A\n' }]]),
  answer('Done'),
];

describe('stepCeiling and maxOutputOf', () => {
  it('prices what is sent at the dearest input price and the most the model writes at the output price', () => {
    // 10,000 × 3.75 + 64,000 × 15, per million
    expect(stepCeiling({ inputTokens: 10_000, outputTokens: 64_000 }, PRICE)).toBe(0.9975);
    expect(stepCeiling({ inputTokens: 1, outputTokens: 0 }, priceOf('openai:gpt-5-nano') as ModelPrice)).toBe(
      0.000001,
    );
    expect(maxOutputOf('anthropic:claude-sonnet-4-5-20250929', null)).toBe(64_000);
    expect(maxOutputOf('anthropic:claude-opus-4-1', null)).toBe(32_000);
    expect(maxOutputOf('anthropic:claude-sonnet-4-6', null)).toBe(128_000);
    expect(maxOutputOf('anthropic:claude-3-5-haiku-latest', null)).toBe(4096);
    expect(maxOutputOf('openai:gpt-4o-mini', null)).toBe(16_384);
    // Unknown: it may write until its window is full.
    expect(maxOutputOf('openai-compatible:llama3', 32_768)).toBe(32_768);
  });
});

describe.each([true, false])('reserving each step with stream: %s', (stream) => {
  it('asks for every model call’s worst case before making it', async () => {
    const model = scriptedModel(turns());
    const ceilings: number[] = [];
    const { run } = await startAgentOver(fixture, model, LIMITS, {
      stream,
      price: PRICE,
      maxOutputTokens: 1000,
      reserveStep: async (ceilingUsd) => {
        // Asked before the call: the model has answered one call fewer.
        expect(callsOf(model)).toHaveLength(ceilings.length);
        ceilings.push(ceilingUsd);
        return null;
      },
    });
    const result = await run;
    expect(ceilings).toHaveLength(3);
    const sentChars = callsOf(model).map((call) => JSON.stringify(call.prompt).length);
    for (const [index, ceiling] of ceilings.entries()) {
      // At least the 1,000 tokens out and what was sent, at a quarter of its characters.
      const floor = stepCeiling({ inputTokens: (sentChars[index] ?? 0) / 4, outputTokens: 1000 }, PRICE);
      expect(ceiling).toBeGreaterThanOrEqual(floor);
      // Each step's real cost (100 tokens in, 20 out) fits in its reservation.
      expect(ceiling).toBeGreaterThan(result.usage.costUsd ?? 0);
    }
    // The conversation grows, and so does what a call may cost.
    expect(ceilings[2]).toBeGreaterThan(ceilings[0] ?? 0);
  });

  it('ends the run with budget_exceeded when a step is refused, without calling the model', async () => {
    const model = scriptedModel(turns());
    let asked = 0;
    const { run } = await startAgentOver(fixture, model, LIMITS, {
      stream,
      price: PRICE,
      reserveStep: async () => (++asked === 2 ? 'The project reached its daily budget.' : null),
    });
    const error = (await run.catch((caught: unknown) => caught)) as AgentError;
    expect(error).toBeInstanceOf(AgentError);
    expect(error.code).toBe('budget_exceeded');
    expect(error.message).toBe('The project reached its daily budget.');
    expect(callsOf(model)).toHaveLength(1);
    expect(error.partial?.usage).toMatchObject({ steps: 1, inputTokens: 100, outputTokens: 20 });
  });

  it('reserves nothing when the price is unknown', async () => {
    const model = scriptedModel(turns());
    let asked = 0;
    const { run } = await startAgentOver(fixture, model, LIMITS, {
      stream,
      price: null,
      reserveStep: async () => {
        asked += 1;
        return 'refused';
      },
    });
    expect((await run).summary).toBe('Done');
    expect(asked).toBe(0);
  });
});
