import { APICallError } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  callsOf,
  callTools,
  createFixture,
  type Fixture,
  mockModel,
} from '../../test/support/agent-fixture.js';
import type { EventType } from '../domain/events.js';
import { AgentError, type AgentLimits, type RunAgentOptions, runAgent } from './loop.js';

const LIMITS: AgentLimits = { maxSteps: 30, maxWallMs: 30_000, maxTokens: 1_000_000, maxFilesChanged: 10 };

let fixture: Fixture;
beforeAll(async () => {
  fixture = await createFixture({ files: { 'README.md': '# Demo\n' } });
});
afterAll(async () => {
  await fixture.cleanup();
});

type Recorded = { type: EventType; data: Record<string, unknown> };

async function start(model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) {
  const events: Recorded[] = [];
  const workspace = await fixture.workspace({ maxFileBytes: 512 * 1024 });
  const run = runAgent({
    model,
    workspace,
    history: [],
    prompts: ['Improve the docs'],
    takePendingPrompts: async () => [],
    limits: LIMITS,
    signal: new AbortController().signal,
    onEvent: async (type, data) => void events.push({ type, data }),
    maxRetries: 0,
    ...overrides,
  });
  return { run, events, workspace };
}

const serverError = () =>
  new APICallError({
    message: 'Internal server error',
    url: 'https://api.example.com/v1/chat',
    requestBodyValues: {},
    statusCode: 500,
    responseHeaders: { 'retry-after-ms': '20' },
  });

describe.each([false, true])('runAgent during a model outage (stream: %s)', (stream) => {
  it('waits while the provider answers 500, then carries on from the last finished step', async () => {
    let calls = 0;
    const model = mockModel(async () => {
      calls += 1;
      if (calls === 1) return callTools([['write_file', { path: 'a.md', content: 'a\n' }]]);
      if (calls <= 5) throw serverError();
      return answer('Wrote a.md');
    });
    const { run, events, workspace } = await start(model, { stream });
    const result = await run;
    expect(result.summary).toBe('Wrote a.md');
    expect(workspace.changedPaths()).toEqual(['a.md']);
    expect(callsOf(model)).toHaveLength(6);
    // The step after the outage was sent the write and its result: nothing was redone.
    expect(callsOf(model)[5]?.prompt.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    const waits = events.filter((event) => event.type === 'phase');
    expect(waits).toHaveLength(4);
    expect(waits[0]?.data).toMatchObject({ phase: 'running', reason: 'model_unavailable' });
    expect(String(waits[0]?.data.message)).toMatch(/HTTP 500.*Trying again at /);
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it('fails with model_error once the outage outlasts the bound', async () => {
    const model = mockModel(async () => {
      throw serverError();
    });
    const began = Date.now();
    const { run, events } = await start(model, { stream, modelOutageWaitMs: 300 });
    const error = await run.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: 'model_error' });
    expect((error as AgentError).message).toMatch(/HTTP 500.*stayed unavailable/);
    expect(callsOf(model).length).toBeGreaterThan(2);
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(events.every((event) => event.type === 'phase')).toBe(true);
  });

  it('does not wait for an error that trying again cannot fix', async () => {
    const model = mockModel(async () => {
      throw new APICallError({ message: 'Bad request', url: 'x', requestBodyValues: {}, statusCode: 400 });
    });
    const { run, events } = await start(model, { stream });
    await expect(run).rejects.toMatchObject({ code: 'model_error', isRetryable: false });
    expect(callsOf(model)).toHaveLength(1);
    expect(events).toEqual([]);
  });
});

describe('runAgent with oversized tool inputs', () => {
  it('keeps a note instead of refused 10 MiB inputs in what it sends and what it returns', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    let calls = 0;
    const model = mockModel(async () => {
      calls += 1;
      if (calls <= 5) return callTools([['write_file', { path: `big-${calls}.md`, content: huge }]]);
      if (calls === 6) return callTools([['write_file', { path: 'small.md', content: 'small\n' }]]);
      return answer('Wrote small.md');
    });
    const { run, events, workspace } = await start(model);
    const result = await run;
    expect(result.summary).toBe('Wrote small.md');
    expect(workspace.changedPaths()).toEqual(['small.md']);
    // Every request after the first refusal stays small: the refused content is not sent again.
    for (const call of callsOf(model).slice(1)) {
      expect(JSON.stringify(call.prompt).length).toBeLessThan(64 * 1024);
    }
    expect(JSON.stringify(result.messages).length).toBeLessThan(64 * 1024);
    expect(JSON.stringify(result.messages)).toContain('omitted: over the 512 KiB limit]');
    expect(JSON.stringify(events).length).toBeLessThan(64 * 1024);
    // The model still reads why each call failed.
    expect(JSON.stringify(callsOf(model)[5]?.prompt)).toMatch(/too large|larger than|limit/i);
  });
});
