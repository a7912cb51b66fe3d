import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicDouble, startAnthropicDouble } from '../support/anthropic-double.js';
import { testDialects } from '../support/db.js';
import { useScriptedWorker } from '../support/scripted-worker.js';

const EPHEMERAL = { type: 'ephemeral' };
/** Claude Sonnet 4.5's list price, USD per million tokens (src/agent/prices.ts). */
const PRICE = { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 };

// The real agent and worker with the real @ai-sdk/anthropic client, against a double of
// Anthropic's Messages API that simulates its prompt cache.
describe.each(testDialects())('prompt caching with Anthropic on %s', (dialect) => {
  let anthropic: AnthropicDouble;
  beforeAll(async () => {
    anthropic = await startAnthropicDouble();
  });
  // The project's model is Anthropic's, served by the double; the scripted model stays unused.
  const scripted = useScriptedWorker(() => ({
    name: 'prompt-cache',
    dialect,
    env: {
      AGENTJOBS_MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-api03-test-key-for-the-double',
      ANTHROPIC_BASE_URL: anthropic.url,
    },
  }));
  afterAll(async () => {
    await anthropic?.close();
  });

  it('marks the system prompt and the last message, and counts cache reads and writes in usage and cost', async () => {
    anthropic.setScript([
      { toolCalls: [{ name: 'read_file', input: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'docs/guide.md' } }] },
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: 'docs/guide.md', old_text: 'Step one.', new_text: 'Step one, then two.' },
          },
        ],
      },
      { text: 'Extended the guide' },
    ]);
    const job = await scripted.runJob({ prompt: 'Extend the guide', model: 'anthropic:claude-sonnet-4-5' });
    expect(job).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });

    expect(anthropic.requests).toHaveLength(4);
    for (const { body } of anthropic.requests) {
      expect(body.system.at(-1).cache_control).toEqual(EPHEMERAL);
      // The eight file tools and run_checks (built-in checks are on by default).
      expect(body.tools.length).toBe(9);
      const last = body.messages.at(-1);
      expect(last.content.at(-1).cache_control).toEqual(EPHEMERAL);
      // Two breakpoints: the system prompt (after the tools) and the end of the conversation.
      expect(JSON.stringify(body).match(/"cache_control"/g)).toHaveLength(2);
    }
    const usages = anthropic.requests.map((request) => request.usage);
    // The first request writes the cache; every later one reads what the one before it wrote.
    expect(usages[0]?.cache_read_input_tokens).toBe(0);
    expect(usages[0]?.cache_creation_input_tokens).toBeGreaterThan(1000);
    usages.slice(1).forEach((usage, index) => {
      const before = usages[index];
      const wrote = (before?.cache_read_input_tokens ?? 0) + (before?.cache_creation_input_tokens ?? 0);
      expect(usage.cache_read_input_tokens).toBe(wrote);
      expect(usage.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(usage.input_tokens).toBe(0);
    });

    const sum = (pick: (usage: (typeof usages)[number]) => number) =>
      usages.reduce((total, usage) => total + pick(usage), 0);
    const cost =
      (sum((u) => u.input_tokens) * PRICE.input +
        sum((u) => u.cache_read_input_tokens) * PRICE.cacheRead +
        sum((u) => u.cache_creation_input_tokens) * PRICE.cacheWrite +
        sum((u) => u.output_tokens) * PRICE.output) /
      1_000_000;
    expect(job.usage).toMatchObject({
      steps: 4,
      inputTokens: sum((u) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens),
      cachedInputTokens: sum((u) => u.cache_read_input_tokens),
      outputTokens: sum((u) => u.output_tokens),
    });
    expect(job.usage.costUsd).toBeCloseTo(cost, 5);

    // The usage events carry the running totals, cost included.
    const events = await scripted.t.store.events.list(job.id, 0, 1000);
    const last = events.filter((event) => event.type === 'usage').at(-1);
    expect(last?.data).toMatchObject({ steps: 4, cachedInputTokens: job.usage.cachedInputTokens });
    expect(Number(last?.data.costUsd)).toBeCloseTo(cost, 5);
    // The stored conversation carries no cache marks: they belong to each request only.
    expect(JSON.stringify(await scripted.t.store.queue.conversation(job.id))).not.toContain('cacheControl');
  });
});
