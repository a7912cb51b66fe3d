/** What the scripted model's own tests share: servers closed after each test, an AI SDK model, waits. */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool } from 'ai';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { type ScriptedModelServer, type ScriptedTurn, startScriptedModel } from './scripted-model.js';

/** Starts scripted models for the tests of a file, each closed after its test. */
export function useScriptedModels() {
  const servers: ScriptedModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async function start(
    script: ScriptedTurn[],
    usage?: { prompt_tokens: number; completion_tokens: number },
  ) {
    const server = await startScriptedModel({ script, ...(usage ? { usage } : {}) });
    servers.push(server);
    return server;
  };
}

export function modelAt(url: string, includeUsage = false) {
  return createOpenAICompatible({ name: 'scripted', baseURL: url, apiKey: 'test-key', includeUsage })(
    'scripted-model',
  );
}

/** A `read_file` tool that records what it was called with. */
export function readFileTool(calls: unknown[]) {
  return tool({
    description: 'Read a file of the repository',
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => {
      calls.push(input);
      return `contents of ${input.path}`;
    },
  });
}

export const toolThenAnswer: ScriptedTurn[] = [
  { toolCalls: [{ name: 'read_file', input: { path: 'docs/intro.md' } }], text: 'Reading the intro.' },
  { text: 'The intro is about scripted models.' },
];

export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function settledFlag(promise: PromiseLike<unknown>) {
  const state = { settled: false };
  Promise.resolve(promise).then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}
