import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey } from '../domain/api-key.js';
import type { AppError } from '../domain/errors.js';
import type { AutomationRunDeps } from '../operations/automation-run.js';
import type { ToolAccess } from './tools.js';

/** What `/mcp` is given: the job operations' store and limits, and the API's key check. */
export interface McpOptions {
  deps: AutomationRunDeps;
  /**
   * The API's key check (`api/auth.ts`, handed over by `server.ts`): a good key, used from an
   * allowed address, with `access` when given; throws the API's 401, 403 or 404.
   */
  admit(request: FastifyRequest, access: Partial<ToolAccess>): Promise<ApiKey>;
  /** The API's reading of an error that is not an `AppError` (`http/errors.ts`). */
  toAppError(error: unknown): AppError;
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
 * address the key does not allow is an HTTP 401/403 and no tool runs. Each tool call then checks
 * the key again for its project and scope, as each API request does, and runs the job operation
 * the API's route runs (`src/operations/`), so validation, the hourly budget, the active-job cap and
 * idempotency are the API's own, and so are its errors. Each call of a batch is counted against
 * the budget as a single call is, and the calls of one POST run at most `MCP_CALLS_AT_ONCE` at a
 * time, each starting in a turn of the event loop of its own, the rest waiting their turn.
 */
export async function mcpRoutes(app: FastifyInstance, { deps, admit, toAppError, version }: McpOptions) {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const key = await admit(request, {});
    // The MCP SDK loads on the first MCP request, not at every start of the server.
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('./tools.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    // Calls of a batch still waiting their turn when the client leaves are not made.
    const gone = new AbortController();
    const server = createMcpServer({
      deps,
      admit: async (access) => {
        await admit(request, access);
      },
      schedule: inTurn(gone.signal),
      toAppError,
      requestId: request.id,
      projectId: key.projectId,
      version,
    });
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
 * Runs the calls of one MCP request `MCP_CALLS_AT_ONCE` at a time, each from a turn of the event
 * loop of its own, until `gone` aborts.
 */
function inTurn(gone: AbortSignal) {
  const queue = boundedQueue(MCP_CALLS_AT_ONCE);
  return <T>(work: () => Promise<T>): Promise<T> =>
    queue(async () => {
      // A SQLite read never waits for I/O: without this, the calls of a batch would run back to
      // back in one turn of the event loop, and no other request (not even /healthz) would be
      // answered until the batch was done.
      await nextTurn();
      gone.throwIfAborted();
      return work();
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
