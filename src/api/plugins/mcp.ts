import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallApi } from '../../mcp/tools.js';
import type { Store } from '../../store/store.js';
import { admit } from '../auth.js';

export interface McpOptions {
  store: Store;
  version: string;
}

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
 * JSON-RPC around it.
 */
export async function mcpRoutes(app: FastifyInstance, { store, version }: McpOptions) {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const key = await admit(store, request, {});
    // The MCP SDK loads on the first MCP request, not at every start of the server.
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('../../mcp/tools.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const server = createMcpServer({ callApi: inProcess(app, request), projectId: key.projectId, version });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The transport writes the response itself; Fastify must not write another.
    reply.hijack();
    reply.raw.setHeader('x-request-id', request.id);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // GET (a stream) and DELETE (a session) have nothing to do without sessions: the API's 405.
}

/** Calls this server's own v2 routes with the caller's key and address. */
function inProcess(app: FastifyInstance, request: FastifyRequest): CallApi {
  const authorization = request.headers.authorization ?? '';
  return async (method, path, options = {}) => {
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
  };
}
