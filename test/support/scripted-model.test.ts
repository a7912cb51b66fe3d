import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { spawnInGroup } from './processes.js';
import {
  heldUntil,
  type ScriptedModelServer,
  type ScriptedTurn,
  startScriptedModel,
} from './scripted-model.js';

const servers: ScriptedModelServer[] = [];
const children: ChildProcess[] = [];
const tempDirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(script: ScriptedTurn[], usage?: { prompt_tokens: number; completion_tokens: number }) {
  const server = await startScriptedModel({ script, ...(usage ? { usage } : {}) });
  servers.push(server);
  return server;
}

function modelAt(url: string, includeUsage = false) {
  return createOpenAICompatible({ name: 'scripted', baseURL: url, apiKey: 'test-key', includeUsage })(
    'scripted-model',
  );
}

/** A `read_file` tool that records what it was called with. */
function readFileTool(calls: unknown[]) {
  return tool({
    description: 'Read a file of the repository',
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => {
      calls.push(input);
      return `contents of ${input.path}`;
    },
  });
}

const toolThenAnswer: ScriptedTurn[] = [
  { toolCalls: [{ name: 'read_file', input: { path: 'docs/intro.md' } }], text: 'Reading the intro.' },
  { text: 'The intro is about scripted models.' },
];

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function settledFlag(promise: PromiseLike<unknown>) {
  const state = { settled: false };
  Promise.resolve(promise).then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe('scripted model with the AI SDK', () => {
  it('runs a tool call and a final answer through generateText', async () => {
    const server = await start(toolThenAnswer, { prompt_tokens: 7, completion_tokens: 3 });
    const calls: unknown[] = [];

    const result = await generateText({
      model: modelAt(server.url),
      prompt: 'What is the intro about?',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });

    expect(calls).toEqual([{ path: 'docs/intro.md' }]);
    expect(result.text).toBe('The intro is about scripted models.');
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe('tool-calls');
    expect(result.finishReason).toBe('stop');
    expect(result.totalUsage).toMatchObject({ inputTokens: 14, outputTokens: 6, totalTokens: 20 });

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.headers.authorization).toBe('Bearer test-key');
    expect(first?.body.stream).toBeFalsy();
    expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'read_file',
    ]);
    // The second request carries the tool result, answering the scripted call id.
    const toolMessage = second?.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_scripted_1_0' });
    expect(JSON.stringify(toolMessage.content)).toContain('contents of docs/intro.md');
  });

  it('runs the same conversation through streamText, with usage when asked for', async () => {
    const server = await start(toolThenAnswer);
    const calls: unknown[] = [];

    const result = streamText({
      model: modelAt(server.url, true),
      prompt: 'What is the intro about?',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);

    expect(calls).toEqual([{ path: 'docs/intro.md' }]);
    expect(await result.text).toBe('The intro is about scripted models.');
    expect(deltas.join('')).toBe('Reading the intro.The intro is about scripted models.');
    expect(deltas.length).toBeGreaterThan(2);
    expect(await result.totalUsage).toMatchObject({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(server.requests.map((request) => request.body.stream)).toEqual([true, true]);
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });

  it.each([500, 429])('surfaces an HTTP %i error turn from generateText', async (status) => {
    const server = await start([
      { error: { status, headers: { 'retry-after': '0', 'x-scripted': 'yes' } } },
      { text: 'not reached' },
    ]);

    const failure = await generateText({ model: modelAt(server.url), prompt: 'hi', maxRetries: 0 }).catch(
      (error: unknown) => error,
    );

    expect(APICallError.isInstance(failure)).toBe(true);
    const error = failure as APICallError;
    expect(error.statusCode).toBe(status);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toBe(`scripted error: HTTP ${status}`);
    expect(error.responseHeaders?.['x-scripted']).toBe('yes');
    expect(server.requests).toHaveLength(1);
  });

  it('passes a scripted error body through and surfaces the error in streamText', async () => {
    const body = {
      error: { message: 'too many requests, slow down', type: 'rate_limit', code: 'rate_limit' },
    };
    const server = await start([{ error: { status: 429, body } }]);
    const errors: unknown[] = [];

    const result = streamText({
      model: modelAt(server.url),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await expect(result.text).rejects.toThrow();

    expect(errors).toHaveLength(1);
    expect((errors[0] as APICallError).statusCode).toBe(429);
    expect((errors[0] as APICallError).message).toBe('too many requests, slow down');
  });

  it('answers a clear 500 when the script runs out, and setScript refills it', async () => {
    const server = await start([{ text: 'only answer' }]);
    const model = modelAt(server.url);

    expect((await generateText({ model, prompt: 'one', maxRetries: 0 })).text).toBe('only answer');
    const failure = await generateText({ model, prompt: 'two', maxRetries: 0 }).catch(
      (error: Error) => error,
    );
    expect((failure as APICallError).statusCode).toBe(500);
    expect((failure as Error).message).toMatch(/script ran out.*request #2/);

    server.setScript([{ text: 'refilled' }]);
    expect((await generateText({ model, prompt: 'three', maxRetries: 0 })).text).toBe('refilled');
  });

  it.each([false, true])('holds a waitFor turn until it is released (streaming: %s)', async (streaming) => {
    const gate = deferred();
    // biome-ignore lint/suspicious/noThenProperty: the literal ScriptedTurn shape, as tests may write it
    const server = await start([{ waitFor: gate.promise, then: { text: 'released' } }]);
    const model = modelAt(server.url);
    const call = streaming
      ? streamText({ model, prompt: 'wait', maxRetries: 0 }).text
      : generateText({ model, prompt: 'wait', maxRetries: 0 }).then((result) => result.text);
    const state = settledFlag(call);

    await waitUntil(() => server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(state.settled).toBe(false);

    gate.resolve();
    expect(await call).toBe('released');
  });

  it('starts a waitFor function only when its request arrives, and nests waits', async () => {
    const gate = deferred();
    let started = 0;
    const server = await start([
      { text: 'first' },
      heldUntil(
        () => {
          started += 1;
          return gate.promise;
        },
        heldUntil(Promise.resolve(), { text: 'second' }),
      ),
    ]);
    const model = modelAt(server.url);

    expect((await generateText({ model, prompt: 'one', maxRetries: 0 })).text).toBe('first');
    expect(started).toBe(0);
    const second = generateText({ model, prompt: 'two', maxRetries: 0 });
    await waitUntil(() => started === 1);
    gate.resolve();
    expect((await second).text).toBe('second');
  });

  it('survives a client that aborts a held request', async () => {
    const server = await start([heldUntil(new Promise<void>(() => {}), { text: 'never' })]);
    const model = modelAt(server.url);
    const abort = new AbortController();

    const held = generateText({ model, prompt: 'wait', maxRetries: 0, abortSignal: abort.signal });
    await waitUntil(() => server.requests.length === 1);
    abort.abort();
    await expect(held).rejects.toThrow();

    server.setScript([{ text: 'still here' }]);
    expect((await generateText({ model, prompt: 'again', maxRetries: 0 })).text).toBe('still here');
  });

  it('closes promptly while a request is still held', async () => {
    const server = await startScriptedModel({
      script: [heldUntil(new Promise<void>(() => {}), { text: 'x' })],
    });
    const held = generateText({ model: modelAt(server.url), prompt: 'wait', maxRetries: 0 });
    const outcome = held.then(
      () => 'answered',
      () => 'failed',
    );
    await waitUntil(() => server.requests.length === 1);

    await server.close();
    expect(await outcome).toBe('failed');
  });

  it('lets the agent see malformed tool arguments sent verbatim', async () => {
    const server = await start([
      { toolCalls: [{ name: 'read_file', input: '{"path": ' }] },
      { text: 'I will try again.' },
    ]);
    const calls: unknown[] = [];

    const result = await generateText({
      model: modelAt(server.url),
      prompt: 'read',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });

    expect(calls).toEqual([]);
    expect(result.steps[0]?.content.some((part) => part.type === 'tool-error')).toBe(true);
    expect(result.text).toBe('I will try again.');
  });
});

describe('scripted model wire format', () => {
  it('sends the chat.completion object', async () => {
    const server = await start(toolThenAnswer);

    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });

    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      id: 'chatcmpl-scripted-1',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gpt-test',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Reading the intro.',
            tool_calls: [
              {
                id: 'call_scripted_1_0',
                type: 'function',
                function: { name: 'read_file', arguments: '{"path":"docs/intro.md"}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });

  it.each([true, false])('streams chat.completion.chunk events (include_usage: %s)', async (includeUsage) => {
    const server = await start(toolThenAnswer);

    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-test',
        messages: [],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const lines = (await response.text()).split('\n\n').filter(Boolean);
    expect(lines.every((line) => line.startsWith('data: '))).toBe(true);
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line.slice('data: '.length)));

    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-test'),
    ).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice: { delta: unknown }) => choice.delta));
    const content = deltas.map((delta) => delta.content ?? '').join('');
    expect(content).toBe('Reading the intro.');
    const toolDeltas = deltas.flatMap((delta) => delta.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'call_scripted_1_0',
      type: 'function',
      function: { name: 'read_file', arguments: '' },
    });
    expect(toolDeltas.length).toBeGreaterThan(2); // the arguments arrive in pieces
    expect(toolDeltas.map((delta) => delta.function.arguments).join('')).toBe('{"path":"docs/intro.md"}');

    const finishes = chunks.flatMap((chunk) =>
      chunk.choices.map((choice: { finish_reason: unknown }) => choice.finish_reason),
    );
    expect(finishes.filter(Boolean)).toEqual(['tool_calls']);
    const usageChunks = chunks.filter((chunk) => chunk.usage);
    if (includeUsage) {
      expect(usageChunks).toEqual([
        expect.objectContaining({ choices: [], usage: expect.objectContaining({ total_tokens: 15 }) }),
      ]);
      expect(chunks.at(-1)).toBe(usageChunks[0]);
    } else {
      expect(usageChunks).toEqual([]);
    }
  });

  it('lists a model and refuses unknown routes', async () => {
    const server = await start([]);
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'scripted', object: 'model' }] });
    expect((await fetch(`${server.url}/completions`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${server.url}/chat/completions`, { method: 'POST', body: 'not json' })).status).toBe(
      400,
    );
  });
});

describe('scripted model as a standalone process', () => {
  const entry = fileURLToPath(new URL('./scripted-model.ts', import.meta.url));
  const root = fileURLToPath(new URL('../..', import.meta.url));

  /** Spawns the CLI and resolves with the URL it prints. */
  function spawnCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
    const child = spawnInGroup(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout?.on('data', (chunk) => {
        stdout += chunk;
        const newline = stdout.indexOf('\n');
        if (newline >= 0) resolve({ child, url: JSON.parse(stdout.slice(0, newline)).url });
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
  }

  it('prints its URL, serves the JSON script with a file wait, and logs requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-model-'));
    tempDirs.push(dir);
    const gateFile = join(dir, 'go');
    const logFile = join(dir, 'requests.jsonl');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify([
        { toolCalls: [{ name: 'read_file', input: { path: 'a.md' } }] },
        { waitForFile: gateFile },
        { text: 'Summary: read a.md.' },
      ]),
    );
    const { child, url } = await spawnCli([
      '--script',
      join(dir, 'script.json'),
      '--port',
      '0',
      '--log',
      logFile,
    ]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const calls: unknown[] = [];
    const run = generateText({
      model: modelAt(url),
      prompt: 'read a.md',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    const state = settledFlag(run);
    await waitUntil(() => calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(state.settled).toBe(false);
    writeFileSync(gateFile, '');

    expect((await run).text).toBe('Summary: read a.md.');
    const logged = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logged).toHaveLength(2);
    expect(logged[0].model).toBe('scripted-model');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a script it cannot read, naming the turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-model-'));
    tempDirs.push(dir);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ text: 'fine' }, { say: 'what?' }]));
    await expect(spawnCli(['--script', join(dir, 'bad.json')])).rejects.toThrow(/turn 2 needs "text"/);
  });
});
