import { APICallError, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { contextKeeper, isContextOverflow, KEEP_RECENT_STEPS } from './context.js';
import { contextWindowOf, DEFAULT_CONTEXT_TOKENS } from './windows.js';

const refusal = (statusCode: number, responseBody: string) =>
  new APICallError({
    message: 'Bad Request',
    url: 'https://x',
    requestBodyValues: {},
    statusCode,
    responseBody,
  });

describe('isContextOverflow', () => {
  it('knows the providers’ words for a prompt longer than the window', () => {
    const openai = JSON.stringify({
      error: {
        code: 'context_length_exceeded',
        message: 'This model’s maximum context length is 128000 tokens.',
      },
    });
    const anthropic = JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    const llamaCpp = JSON.stringify({
      error: { type: 'exceed_context_size_error', message: 'the request exceeds the available context size' },
    });
    for (const body of [openai, anthropic, llamaCpp])
      expect(isContextOverflow(refusal(400, body))).toBe(true);
  });
  it('does not take other bad requests, or a 5xx, for one', () => {
    expect(isContextOverflow(refusal(400, '{"error":{"message":"tools[0].name is invalid"}}'))).toBe(false);
    expect(isContextOverflow(refusal(500, 'prompt is too long'))).toBe(false);
    expect(isContextOverflow(new Error('prompt is too long'))).toBe(false);
  });
});

describe('contextWindowOf', () => {
  it('knows model families by prefix, and falls back to the configured window', () => {
    expect(contextWindowOf('anthropic:claude-sonnet-4-5-20250929', null)).toBe(200_000);
    expect(contextWindowOf('openai:gpt-4o-mini', 5000)).toBe(128_000);
    expect(contextWindowOf('openai-compatible:llama3', 8192)).toBe(8192);
    expect(contextWindowOf('openai-compatible:llama3', null)).toBe(DEFAULT_CONTEXT_TOKENS);
  });
});

/** A conversation of `steps` reads of 4,000 characters each, after one prompt. */
function reads(steps: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'Read the pages' }];
  for (let step = 1; step <= steps; step++) {
    const toolCallId = `call-${step}`;
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `p${step}.md` } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName: 'read_file',
            output: { type: 'text', value: `p${step}.md (lines 1-40 of 40):\n${'x'.repeat(4000)}` },
          },
        ],
      },
    );
  }
  return messages;
}

describe('contextKeeper', () => {
  it('leaves a conversation well inside the window alone', () => {
    const keeper = contextKeeper({ windowTokens: 100_000, fixedTokens: 1000 });
    const messages = reads(10);
    const prepared = keeper.prepare(messages);
    expect(prepared.compaction).toBeNull();
    expect(prepared.messages).toBe(messages);
  });

  it('replaces the oldest results near the window, keeps the last steps, and keeps replacing them', () => {
    const keeper = contextKeeper({ windowTokens: 12_000, fixedTokens: 500 });
    const prepared = keeper.prepare(reads(12));
    expect(prepared.compaction).toMatchObject({ reason: 'near_window', windowTokens: 12_000 });
    expect(prepared.compaction?.tokensAfter).toBeLessThanOrEqual(6000);
    const text = JSON.stringify(prepared.messages);
    expect(text).toContain(
      '[Removed to save context: p1.md (lines 1-40 of 40), read earlier; read it again if needed.]',
    );
    for (let step = 12 - KEEP_RECENT_STEPS + 1; step <= 12; step++)
      expect(text).toContain(`p${step}.md (lines 1-40 of 40):\\n`);
    // The same results stay replaced in a longer conversation, without another compaction.
    const again = keeper.apply(reads(13));
    expect(JSON.stringify(again)).toContain('[Removed to save context: p1.md');
  });

  it('compacts after an overflow even under its threshold, once per refusal', () => {
    const keeper = contextKeeper({ windowTokens: 1_000_000, fixedTokens: 500 });
    const messages = reads(10);
    expect(keeper.overflow(messages, keeper.estimate(messages))).toBe(true);
    const prepared = keeper.prepare(messages);
    expect(prepared.compaction?.reason).toBe('overflow');
    expect(keeper.windowTokens).toBeLessThan(1_000_000);
    expect(keeper.prepare(prepared.messages).compaction).toBeNull();
  });

  it('says when nothing is left to replace', () => {
    const keeper = contextKeeper({ windowTokens: 1_000_000, fixedTokens: 500 });
    expect(keeper.overflow(reads(KEEP_RECENT_STEPS), 100_000)).toBe(false);
  });
});
