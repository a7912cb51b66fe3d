/** The scripted model's HTTP server: its routes, the requests it records, the context limit and closing. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { type ScriptedTurn, settle } from './scripted-model-script.js';
import { errorBody, MODEL_ID, now, reply, sendJson } from './scripted-model-wire.js';

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

/** Starts a scripted model listening on `host` (default 127.0.0.1) and `port` (default: any free one). */
export function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModelServer> {
  return listen(options);
}

/** `startScriptedModel`, with `onRequest` told of every chat-completions body (the standalone `--log`). */
export async function listen(
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
        body = JSON.parse(await text(request));
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
