/**
 * The scripted model's wire format: a settled turn written as OpenAI's Chat Completions would send it.
 *
 * Where the shapes come from: OpenAI's Chat Completions API reference.
 * - The chat completion object (non-streaming reply): an `id`, `object: "chat.completion"`, a `created`
 *   Unix time in seconds, the `model`, a `choices` list whose entries hold an `index`, an assistant
 *   `message` (`role`, `content` that may be null, optional `tool_calls`) and a `finish_reason`
 *   ("stop" for a final answer, "tool_calls" when the model wants tools run), and `usage` with
 *   `prompt_tokens`, `completion_tokens` and `total_tokens`.
 * - A tool call, in a message: `{ id, type: "function", function: { name, arguments } }`, where
 *   `arguments` is a JSON document serialised to a string (the model's output, not yet parsed).
 * - The chat completion chunk object (streaming, sent as server-sent events `data: {...}` and closed by
 *   `data: [DONE]`): the same `id`, `created` and `model` on every chunk, `object:
 *   "chat.completion.chunk"`, and `choices[].delta` carrying only what is new: the role in the first
 *   chunk, then pieces of `content`, then `tool_calls` pieces keyed by `index` (the first piece of a
 *   call brings its `id`, `type` and `function.name`, later ones only more of `function.arguments`).
 *   The last choice chunk has an empty delta and the `finish_reason`. When the request asked for
 *   `stream_options: { include_usage: true }`, every chunk carries `usage: null` and one more chunk
 *   with empty `choices` carries the real `usage` just before `[DONE]`.
 * - Errors are answered the way OpenAI does: an HTTP status and `{ error: { message, type, param, code } }`.
 *   With a context limit set (`contextLimitChars`), a request whose messages and tools serialise to
 *   more characters than that is refused, before any turn is taken, as OpenAI refuses a prompt
 *   longer than the model's window: 400, `type: "invalid_request_error"`, `param: "messages"`,
 *   `code: "context_length_exceeded"`, "This model's maximum context length is … tokens. …".
 */
import type { ServerResponse } from 'node:http';
import type { ReplyTurn } from './scripted-model-script.js';

export const MODEL_ID = 'scripted';

export function reply(
  response: ServerResponse,
  turn: ReplyTurn,
  // biome-ignore lint/suspicious/noExplicitAny: the parsed request body
  body: any,
  tokens: { prompt_tokens: number; completion_tokens: number },
  sequence: number,
): void {
  if ('error' in turn) {
    replyError(response, turn.error);
    return;
  }
  const toolCalls =
    'toolCalls' in turn
      ? turn.toolCalls.map((call, index) => ({
          id: `call_scripted_${sequence}_${index}`,
          type: 'function' as const,
          function: { name: call.name, arguments: serialiseArguments(call.input) },
        }))
      : [];
  const answer: Answer = {
    id: `chatcmpl-scripted-${sequence}`,
    created: now(),
    model: typeof body?.model === 'string' ? body.model : MODEL_ID,
    content: turn.text ?? null,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    usage: { ...tokens, total_tokens: tokens.prompt_tokens + tokens.completion_tokens },
  };
  if (body?.stream !== true) {
    sendJson(response, 200, completion(answer));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of streamEvents(answer, body?.stream_options?.include_usage === true)) {
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify(event)}\n\n`);
  }
  response.end('data: [DONE]\n\n');
}

interface Answer {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  finishReason: 'stop' | 'tool_calls';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function replyError(
  response: ServerResponse,
  { status, body, headers = {} }: { status: number; body?: unknown; headers?: Record<string, string> },
): void {
  if (typeof body === 'string') {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    response.end(body);
    return;
  }
  sendJson(
    response,
    status,
    body ?? errorBody(`scripted error: HTTP ${status}`, 'scripted_error', status),
    headers,
  );
}

/** The chat completion object. */
function completion(answer: Answer) {
  const { id, created, model, content, toolCalls, finishReason, usage } = answer;
  const message = { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

/** The chat completion chunk objects, in order, for one streamed answer. */
function streamEvents(answer: Answer, includeUsage: boolean): unknown[] {
  const { id, created, model, content, toolCalls, finishReason, usage } = answer;
  const chunk = (choices: unknown[], extra: object = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const delta = (value: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);

  const events = [delta({ role: 'assistant', content: '' })];
  for (const piece of pieces(content ?? '')) events.push(delta({ content: piece }));
  toolCalls.forEach((call, index) => {
    const { name, arguments: input } = call.function;
    events.push(
      delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name, arguments: '' } }] }),
    );
    for (const piece of pieces(input))
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(delta({}, finishReason));
  if (includeUsage) events.push(chunk([], { usage }));
  return events;
}

function serialiseArguments(input: unknown): string {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

/** Splits text into up to three pieces so that clients really see deltas arrive. */
function pieces(text: string): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / 3));
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

export function errorBody(message: string, type: string, code: string | number = type) {
  return { error: { message, type, param: null, code } };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(payload));
}

export function now(): number {
  return Math.floor(Date.now() / 1000);
}
