// The scripted model's bytes on the wire: the chat.completion object, the chunk stream, its other routes.
import { describe, expect, it } from 'vitest';
import { toolThenAnswer, useScriptedModels } from './scripted-model-fixture.js';

const start = useScriptedModels();

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
