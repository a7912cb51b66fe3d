/**
 * A protocol double of Anthropic's Messages API (`POST /v1/messages`), for tests and benchmarks of
 * what the real `@ai-sdk/anthropic` client sends and of what a run makes of the answers.
 *
 * Where the shapes come from: Anthropic's Messages API reference.
 * - The request: `model`, `max_tokens`, `system` (a string or text blocks), `messages` (user and
 *   assistant turns of content blocks: `text`, `tool_use`, `tool_result`), `tools`, `stream`. Any
 *   block, tool or system block may carry `cache_control: { type: "ephemeral" }`: a cache breakpoint.
 * - The message object (a whole answer): `id`, `type: "message"`, `role: "assistant"`, `model`,
 *   `content` (`text` blocks and `tool_use` blocks `{ id, name, input }`), `stop_reason` (`end_turn`,
 *   `tool_use`), `stop_sequence`, and `usage`: `input_tokens` (input after the last breakpoint, not
 *   read from or written to the cache), `cache_creation_input_tokens`, `cache_read_input_tokens`,
 *   `output_tokens`.
 * - Streaming (server-sent events, `event:` and `data:` lines): `message_start` (the message with
 *   empty content and the input usage), per block `content_block_start`, `content_block_delta`
 *   (`text_delta`, or `input_json_delta` with a `partial_json` piece), `content_block_stop`; then
 *   `message_delta` (`stop_reason`, `usage.output_tokens`) and `message_stop`.
 * - Errors: an HTTP status and `{ type: "error", error: { type, message } }`; a prompt longer than the
 *   window is 400 `invalid_request_error` "prompt is too long: N tokens > M maximum".
 *
 * Caching is simulated the way Anthropic describes it: the prompt is read in the order tools, system,
 * messages; a request writes the cache at each of its breakpoints, and reads the longest prefix an
 * earlier request wrote. Tokens are counted as a quarter of the characters of the blocks' JSON.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text as readText } from 'node:stream/consumers';

/** One answer: a final text, or tool calls (with optional text before them). */
export type AnthropicTurn =
  | { text: string }
  | { toolCalls: { name: string; input: unknown }[]; text?: string };

export interface AnthropicDouble {
  /** Base URL for `ANTHROPIC_BASE_URL` (ends in /v1). */
  url: string;
  /** Every `POST /v1/messages` body, parsed, with the usage it was answered with. */
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON that tests read freely
  requests: { body: any; bytes: number; usage: AnthropicUsage }[];
  setScript(turns: AnthropicTurn[]): void;
  /** Refuse prompts of more than `tokens` (estimated) as too long; null: no limit. */
  setContextLimit(tokens: number | null): void;
  close(): Promise<void>;
}

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

const tokensOf = (text: string) => Math.ceil(text.length / 4);

export async function startAnthropicDouble(
  options: { script?: AnthropicTurn[] } = {},
): Promise<AnthropicDouble> {
  let script = [...(options.script ?? [])];
  let contextLimit: number | null = null;
  const requests: AnthropicDouble['requests'] = [];
  /** Hashes of the prefixes earlier requests wrote to the cache, with their token counts. */
  const cache = new Map<string, number>();
  let served = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'POST' || path !== '/v1/messages')
      return sendError(response, 404, 'not_found_error', `no route for ${request.method} ${path}`);
    const text = await readText(request);
    // biome-ignore lint/suspicious/noExplicitAny: the parsed request
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return sendError(response, 400, 'invalid_request_error', 'request body is not JSON');
    }
    const prompt = promptBlocks(body);
    const total = prompt.reduce((sum, block) => sum + block.tokens, 0);
    if (contextLimit !== null && total > contextLimit) {
      requests.push({ body, bytes: Buffer.byteLength(text), usage: emptyUsage() });
      return sendError(
        response,
        400,
        'invalid_request_error',
        `prompt is too long: ${total} tokens > ${contextLimit} maximum`,
      );
    }
    const usage = cacheUsage(prompt, cache);
    served += 1;
    const turn = script.shift();
    if (!turn) return sendError(response, 500, 'api_error', `the script ran out at request #${served}`);
    const content = [
      ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
      ...('toolCalls' in turn
        ? turn.toolCalls.map((call, index) => ({
            type: 'tool_use',
            id: `toolu_double_${served}_${index}`,
            name: call.name,
            input: call.input,
          }))
        : []),
    ];
    usage.output_tokens = tokensOf(JSON.stringify(content));
    requests.push({ body, bytes: Buffer.byteLength(text), usage });
    const message = {
      id: `msg_double_${served}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: 'toolCalls' in turn ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    };
    if (body.stream === true) return stream(response, message);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(message));
  };

  const server = createServer((request, response) => {
    response.on('error', () => {});
    handle(request, response).catch((error: unknown) =>
      sendError(response, 500, 'api_error', error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript(turns) {
      script = [...turns];
    },
    setContextLimit(tokens) {
      contextLimit = tokens;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface PromptBlock {
  /** The block's JSON without its cache mark: what a prefix is compared by. */
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** The prompt as Anthropic reads it: tools, then system blocks, then each message's blocks. */
// biome-ignore lint/suspicious/noExplicitAny: the parsed request
function promptBlocks(body: any): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (block: Record<string, unknown>, where: string) => {
    const { cache_control, ...rest } = block;
    const key = `${where}:${JSON.stringify(rest)}`;
    blocks.push({ key, tokens: tokensOf(key), breakpoint: cache_control !== undefined });
  };
  for (const tool of body.tools ?? []) add(tool, 'tool');
  const system =
    typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const block of system) add(block, 'system');
  for (const message of body.messages ?? []) {
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of content) add(block, message.role);
  }
  return blocks;
}

/** What a request reads from the cache, writes to it, and pays in full; records what it wrote. */
function cacheUsage(blocks: PromptBlock[], cache: Map<string, number>): AnthropicUsage {
  const hash = createHash('sha256');
  let tokens = 0;
  let read = 0;
  let written = 0;
  const writes: [string, number][] = [];
  blocks.forEach((block) => {
    hash.update(block.key);
    tokens += block.tokens;
    const digest = hash.copy().digest('hex');
    if (cache.has(digest)) read = tokens;
    if (block.breakpoint) {
      writes.push([digest, tokens]);
      written = tokens;
    }
  });
  for (const [digest, count] of writes) cache.set(digest, count);
  const creation = Math.max(0, written - read);
  return {
    input_tokens: tokens - read - creation,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: read,
    output_tokens: 0,
  };
}

function emptyUsage(): AnthropicUsage {
  return { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
}

// biome-ignore lint/suspicious/noExplicitAny: the message object built above
function stream(response: ServerResponse, message: any): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) =>
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const { output_tokens, ...input } = message.usage;
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...input, output_tokens: 1 } },
  });
  message.content.forEach((block: { type: string; text?: string; input?: unknown }, index: number) => {
    if (block.type === 'text') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { ...block, input: {} },
      });
      const json = JSON.stringify(block.input ?? {});
      const half = Math.ceil(json.length / 2);
      for (const piece of [json.slice(0, half), json.slice(half)])
        send('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: piece },
        });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens },
  });
  send('message_stop', { type: 'message_stop' });
  response.end();
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  if (response.headersSent) return void response.end();
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ type: 'error', error: { type, message } }));
}
