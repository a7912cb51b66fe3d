import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallApi } from '../../mcp/tools.js';
import type { Store } from '../../store/store.js';
import { admit } from '../auth.js';

export interface McpOptions {
  store: Store;
  version: string;
}

/**
 * Tool calls of one POST that run at once. A JSON-RPC batch (the SDK takes up to 100 messages)
 * would otherwise start every call together: one request, a hundred requests' work at the same
 * instant, past the connection limit that bounds everyone else.
 */
const MCP_CALLS_AT_ONCE = 4;

/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (no sessions: every POST
 * is answered on its own, so any API process can take any request, like the rest of the API).
 *
 * The key is checked before the protocol starts: no key, a bad, revoked or expired one, or an
 * address the key does not allow is an HTTP 401/403 and no tool runs. Each tool then calls the v2
 * route it stands for in process (`app.inject`) with the caller's key and address, so scopes,
 * validation, the hourly budget, the active-job cap and idempotency are the API's own, and so are
 * its errors. Calling the routes rather than a service function shared with them keeps one code
 * path for each operation, at the price of a second routing pass, which is small next to the
 * JSON-RPC around it. So each call of a batch is counted against the budget as a single call is,
 * and the calls of one POST run at most `MCP_CALLS_AT_ONCE` at a time, each starting in a turn of
 * the event loop of its own, the rest waiting their turn.
 */
export async function mcpRoutes(app: FastifyInstance, { store, version }: McpOptions) {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const key = await admit(store, request, {});
    // The MCP SDK loads on the first MCP request, not at every start of the server.
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('../../mcp/tools.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    // Calls of a batch still waiting their turn when the client leaves are not made.
    const gone = new AbortController();
    const callApi = inProcess(app, request, gone.signal);
    const server = createMcpServer({ callApi, projectId: key.projectId, version });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The transport writes the response itself; Fastify must not write another.
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    reply.raw.on('close', () => {
      gone.abort();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // GET (a stream) and DELETE (a session) have nothing to do without sessions: the API's 405.
}

/**
 * Calls this server's own v2 routes with the caller's key and address, `MCP_CALLS_AT_ONCE` at a
 * time for the one MCP request it serves, until `gone` aborts.
 */
function inProcess(app: FastifyInstance, request: FastifyRequest, gone: AbortSignal): CallApi {
  const authorization = request.headers.authorization ?? '';
  const queue = boundedQueue(MCP_CALLS_AT_ONCE);
  return (method, path, options = {}) =>
    queue(async () => {
      // An in-process call of a SQLite read never waits for I/O: without this, the calls of a
      // batch would run back to back in one turn of the event loop, and no other request (not
      // even /healthz) would be answered until the batch was done.
      await nextTurn();
      gone.throwIfAborted();
      const response = await app.inject({
        method,
        url: path,
        remoteAddress: request.ip,
        headers: {
          authorization,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
      });
      return { status: response.statusCode, body: response.json() };
    });
}

/** Runs the tasks given to it at most `width` at a time, the rest in the order they came. */
function boundedQueue(width: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= width) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiting task, so `running` never counts it twice.
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
