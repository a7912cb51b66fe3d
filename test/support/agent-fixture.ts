/**
 * Test support for the agent's tests (not used by the service): runs of the agent over a
 * repository of `repo-fixture.ts`, and scripted model answers.
 */
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import {
  type AgentEventSink,
  type AgentLimits,
  type RunAgentOptions,
  runAgent,
} from '../../src/agent/loop.js';

import type { Fixture } from './repo-fixture.js';

export { createFixture, type Fixture, type FixtureContent } from './repo-fixture.js';

/** One event a run reported. */
export interface RecordedEvent {
  type: Parameters<AgentEventSink>[0];
  data: Record<string, unknown>;
}

/**
 * Runs the agent over a fresh workspace of `fixture`, recording its events, for the prompt "Improve
 * the docs" with no follow-ups; `overrides` replace any of that. The workspace's file-size limit is
 * small, so an oversized file is cheap to put in a fixture.
 */
export async function startAgentOver(
  fixture: Fixture,
  model: MockLanguageModelV3,
  limits: AgentLimits,
  overrides: Partial<RunAgentOptions> = {},
) {
  const events: RecordedEvent[] = [];
  const workspace = await fixture.workspace({ maxFileBytes: 4096 });
  const run = runAgent({
    model,
    workspace,
    history: [],
    prompts: ['Improve the docs'],
    takePendingPrompts: async () => [],
    limits,
    signal: new AbortController().signal,
    onEvent: async (type, data) => void events.push({ type, data }),
    ...overrides,
  });
  return { run, events, workspace };
}

/** One answer of a scripted model (what `doGenerate` resolves to). */
export type ModelTurn = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
/** One streamed answer (what `doStream` resolves to), and the parts of its stream. */
export type StreamedTurn = Awaited<ReturnType<MockLanguageModelV3['doStream']>>;
export type StreamPart = StreamedTurn['stream'] extends ReadableStream<infer Part> ? Part : never;
/** What the model is called with. */
export type CallOptions = MockLanguageModelV3['doGenerateCalls'][number];

let callCount = 0;

/** Token counts of a scripted turn. */
function usage(input: number, output: number): ModelTurn['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** A turn in which the model calls tools (optionally saying something first). */
export function callTools(
  calls: [name: string, input: unknown][],
  options: { text?: string; tokens?: [number, number] } = {},
): ModelTurn {
  const [input, output] = options.tokens ?? [100, 20];
  return {
    content: [
      ...(options.text ? [{ type: 'text' as const, text: options.text }] : []),
      ...calls.map(([toolName, args]) => ({
        type: 'tool-call' as const,
        toolCallId: `call-${++callCount}`,
        toolName,
        input: typeof args === 'string' ? args : JSON.stringify(args),
      })),
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: usage(input, output),
    warnings: [],
  };
}

/** A final answer. */
export function answer(text: string, tokens: [number, number] = [100, 20]): ModelTurn {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(tokens[0], tokens[1]),
    warnings: [],
  };
}

/**
 * `turn` as a provider streams it: each text and each tool call's input in a few pieces, the tool
 * call itself, then the finish with the usage.
 */
function streamed(turn: ModelTurn): StreamedTurn {
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: turn.warnings }];
  turn.content.forEach((part, index) => {
    if (part.type === 'text') {
      const id = `text-${index}`;
      parts.push({ type: 'text-start', id });
      for (const delta of pieces(part.text)) parts.push({ type: 'text-delta', id, delta });
      parts.push({ type: 'text-end', id });
    } else if (part.type === 'tool-call') {
      const id = part.toolCallId;
      parts.push({ type: 'tool-input-start', id, toolName: part.toolName });
      for (const delta of pieces(part.input)) parts.push({ type: 'tool-input-delta', id, delta });
      parts.push({ type: 'tool-input-end', id }, part);
    }
  });
  parts.push({ type: 'finish', finishReason: turn.finishReason, usage: turn.usage });
  return { stream: simulateReadableStream({ chunks: parts }) };
}

/** Up to three pieces of `text`, so that a stream really delivers it in parts. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

/**
 * A mock model whose every call is answered by `respond`: whole (`doGenerate`) or streamed
 * (`doStream`), whichever the caller asks for. A rejection of `respond` is the provider refusing
 * the call, before any of an answer arrives.
 */
export function mockModel(respond: (options: CallOptions) => PromiseLike<ModelTurn>): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: (options) => respond(options),
    doStream: async (options) => streamed(await respond(options)),
  });
}

/** A model whose one answer is the stream of `parts` (a `ReadableStream` is sent as it is). */
export function streamingModel(parts: StreamPart[] | ReadableStream<StreamPart>): MockLanguageModelV3 {
  let called = false;
  return new MockLanguageModelV3({
    doStream: async () => {
      if (called) throw new Error('the streaming model answers only once');
      called = true;
      return { stream: Array.isArray(parts) ? simulateReadableStream({ chunks: parts }) : parts };
    },
  });
}

/** The start of a streamed answer: some text, as a provider sends it before it fails. */
export const BEGUN: StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 'text-0' },
  { type: 'text-delta', id: 'text-0', delta: 'I will ' },
];

/** An answer that breaks off: it begins, then the provider sends `error` and ends the stream. */
export function brokenOff(error: unknown): StreamPart[] {
  return [
    ...BEGUN,
    { type: 'error', error },
    { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: usage(10, 5) },
  ];
}

/** Every call made to `model`, whole or streamed (a run makes only one kind). */
export function callsOf(model: MockLanguageModelV3): CallOptions[] {
  return [...model.doGenerateCalls, ...model.doStreamCalls];
}

/** A mock model that plays `turns` in order, one per call, and fails loudly when they run out. */
export function scriptedModel(turns: ModelTurn[]): MockLanguageModelV3 {
  let next = 0;
  return mockModel(async () => {
    const turn = turns[next++];
    if (!turn) throw new Error(`the script has only ${turns.length} turns`);
    return turn;
  });
}
