/**
 * A scripted OpenAI-compatible model server for end-to-end tests.
 *
 * It speaks just enough of OpenAI's Chat Completions protocol for the AI SDK's
 * `@ai-sdk/openai-compatible` provider, and answers each `POST /v1/chat/completions` with the next turn
 * of a script instead of a model. `GET /v1/models` lists one model.
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
 *
 * Standalone: `node --import tsx test/support/scripted-model.ts --script turns.json [--port 0]
 * [--host 127.0.0.1] [--log requests.jsonl]` prints `{"url":"http://…/v1"}` on one line once listening.
 * The JSON script is an array of turns as below, except that a wait is `{ "waitForFile": "/path",
 * "then": turn }` (or, without `then`, it releases into the turn that follows it in the array); the
 * request is held until that file exists.
 */
import { appendFileSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** One reply of the scripted model; each chat-completions request consumes one turn. */
export type ScriptedTurn =
  /** A final answer (`finish_reason: "stop"`). */
  | { text: string }
  /**
   * The model calls tools (`finish_reason: "tool_calls"`). `input` is serialised as the call's
   * `arguments`; a string is sent verbatim, which lets a test send malformed arguments.
   */
  | { toolCalls: { name: string; input: unknown }[]; text?: string }
  /** An HTTP error. Without `body`, an OpenAI-style error object naming the status is sent. */
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  /** Hold the request open until `waitFor` settles, then answer with `then`. */
  | { waitFor: Promise<void> | (() => Promise<void>); then: ScriptedTurn }
  /** Choose the turn from the request (its parsed body), e.g. when concurrent jobs share one script. */
  // biome-ignore lint/suspicious/noExplicitAny: the parsed request body, as in ScriptedModelServer.requests
  | { answer: (body: any) => ScriptedTurn };

/**
 * Builds a wait turn: `heldUntil(gate, { text: 'done' })`. Same as writing the object literal, which
 * Biome's noThenProperty rule flags for its `then` key.
 */
export function heldUntil(waitFor: Promise<void> | (() => Promise<void>), then: ScriptedTurn): ScriptedTurn {
  return { waitFor, then };
}

/** A running scripted model: point an OpenAI-compatible provider at `url`. */
export interface ScriptedModelServer {
  /** Base URL for OPENAI_COMPATIBLE_BASE_URL, ending in /v1. */
  url: string;
  /** Every chat-completions request received, in order (parsed body, lower-cased header names). */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON that tests read freely
  requests: { body: any; headers: Record<string, string | string[] | undefined> }[];
  /** Replace the script; turns are consumed one per chat-completions request. */
  setScript(turns: ScriptedTurn[]): void;
  /** Refuse requests longer than `chars` (messages and tools, as JSON) as too long; null: no limit. */
  setContextLimit(chars: number | null): void;
  /** Requests refused by the context limit so far (they are in `requests` too). */
  readonly refusedAsTooLong: number;
  /** Stop listening, dropping any request still held by a wait. */
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  script?: ScriptedTurn[];
  port?: number;
  host?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** See `setContextLimit`. */
  contextLimitChars?: number | null;
}

type ReplyTurn = Exclude<ScriptedTurn, { waitFor: unknown } | { answer: unknown }>;

const MODEL_ID = 'scripted';

/** Starts a scripted model listening on `host` (default 127.0.0.1) and `port` (default: any free one). */
export function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModelServer> {
  return listen(options);
}

async function listen(
  options: ScriptedModelOptions,
  onRequest?: (body: unknown) => void,
): Promise<ScriptedModelServer> {
  const host = options.host ?? '127.0.0.1';
  const usage = options.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  let script = [...(options.script ?? [])];
  let served = 0;
  let contextLimit = options.contextLimitChars ?? null;
  let refusedAsTooLong = 0;
  const requests: ScriptedModelServer['requests'] = [];
  const inFlight = new Set<AbortController>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      const model = { id: MODEL_ID, object: 'model', created: now(), owned_by: 'scripted-model' };
      return sendJson(response, 200, { object: 'list', data: [model] });
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(response, 404, errorBody(`no route for ${request.method} ${path}`, 'not_found'));
    }

    const abort = new AbortController();
    inFlight.add(abort);
    response.on('close', () => {
      inFlight.delete(abort);
      if (!response.writableFinished) abort.abort();
    });
    try {
      // biome-ignore lint/suspicious/noExplicitAny: see ScriptedModelServer.requests
      let body: any;
      try {
        body = JSON.parse(await readBody(request));
      } catch {
        return sendJson(response, 400, errorBody('request body is not JSON', 'invalid_request_error'));
      }
      requests.push({ body, headers: { ...request.headers } });
      onRequest?.(body);
      const size = JSON.stringify(body?.messages ?? []).length + JSON.stringify(body?.tools ?? []).length;
      if (contextLimit !== null && size > contextLimit) {
        refusedAsTooLong += 1;
        const message = `This model's maximum context length is ${Math.floor(contextLimit / 4)} tokens. However, your messages resulted in ${Math.ceil(size / 4)} tokens. Please reduce the length of the messages.`;
        return sendJson(response, 400, {
          error: {
            message,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        });
      }
      served += 1;
      const next = script.shift();
      if (next === undefined) {
        const message = `scripted model: the script ran out (no turn left for chat-completions request #${served})`;
        return sendJson(response, 500, errorBody(message, 'script_exhausted'));
      }
      const turn = await settle(next, body, abort.signal);
      if (abort.signal.aborted) return;
      reply(response, turn, body, usage, served);
    } catch (error) {
      if (abort.signal.aborted) return; // the client went away or the server is closing: nobody to tell
      const message = `scripted model: ${error instanceof Error ? error.message : String(error)}`;
      sendJson(response, 500, errorBody(message, 'scripted_model_error'));
    }
  };

  const server = createServer((request, response) => {
    response.on('error', () => {}); // a client that hangs up mid-reply is not the server's problem
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/v1`,
    requests,
    setScript(turns) {
      script = [...turns];
    },
    setContextLimit(chars) {
      contextLimit = chars;
    },
    get refusedAsTooLong() {
      return refusedAsTooLong;
    },
    close() {
      for (const abort of inFlight) abort.abort();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** Waits out any `waitFor` wrappers and asks `answer` turns, giving up when the request is aborted. */
// biome-ignore lint/suspicious/noExplicitAny: the parsed request body
async function settle(turn: ScriptedTurn, body: any, signal: AbortSignal): Promise<ReplyTurn> {
  let current = turn;
  while ('waitFor' in current || 'answer' in current) {
    if ('answer' in current) {
      current = current.answer(body);
      continue;
    }
    const wait = typeof current.waitFor === 'function' ? current.waitFor() : current.waitFor;
    await untilAborted(wait, signal);
    current = current.then;
  }
  return current;
}

function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Error('request aborted'));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new Error('request aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function reply(
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

function errorBody(message: string, type: string, code: string | number = type) {
  return { error: { message, type, param: null, code } };
}

function sendJson(
  response: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(payload));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

// ---- standalone process ----------------------------------------------------------------------------

/** Reads a JSON script, turning `{ waitForFile }` turns into waits that poll for the file. */
function scriptFromJson(value: unknown, source: string): ScriptedTurn[] {
  if (!Array.isArray(value)) throw new Error(`${source}: the script must be a JSON array of turns`);
  let index = 0;
  const take = (): ScriptedTurn => {
    const label = `${source}: turn ${index + 1}`;
    if (index >= value.length)
      throw new Error(`${label} is missing: a "waitForFile" turn needs one after it`);
    const item: unknown = value[index];
    index += 1;
    return turnFromJson(item, label, take);
  };
  const turns: ScriptedTurn[] = [];
  while (index < value.length) turns.push(take());
  return turns;
}

function turnFromJson(item: unknown, label: string, following: () => ScriptedTurn): ScriptedTurn {
  if (item === null || typeof item !== 'object') throw new Error(`${label} must be an object`);
  const turn = item as Record<string, unknown>;
  if (typeof turn.waitForFile === 'string') {
    const file = turn.waitForFile;
    const then =
      turn.then === undefined ? following() : turnFromJson(turn.then, `${label} "then"`, following);
    return { waitFor: () => fileExists(file), then };
  }
  const error = turn.error as { status?: unknown } | undefined;
  if (typeof turn.text === 'string' || Array.isArray(turn.toolCalls) || typeof error?.status === 'number') {
    return turn as ScriptedTurn;
  }
  throw new Error(`${label} needs "text", "toolCalls", "error": { "status" } or "waitForFile"`);
}

function fileExists(path: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (existsSync(path)) resolve();
      else setTimeout(check, 25).unref();
    };
    check();
  });
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      script: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      log: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port: not a port: ${values.port}`);
  const script = values.script
    ? scriptFromJson(JSON.parse(readFileSync(values.script, 'utf8')), values.script)
    : [];
  const log = values.log;
  const onRequest = log ? (body: unknown) => appendFileSync(log, `${JSON.stringify(body)}\n`) : undefined;
  const server = await listen({ script, port, host: values.host }, onRequest);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`scripted-model: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
