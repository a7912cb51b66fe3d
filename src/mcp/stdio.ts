/**
 * `agentjobs mcp`: the MCP tools over stdio, for assistants that start a local command. It is a
 * client of a running server (AGENTJOBS_URL, AGENTJOBS_API_KEY): it connects to the server's
 * `/mcp` and relays the tool list and the tool calls, so the tools, their checks and their
 * errors are the server's own, and a key's project is decided where the key is known. Nothing is
 * written to stdout but the protocol.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface StdioRelayOptions {
  /** The server's base URL (AGENTJOBS_URL). */
  url: string;
  /** An admin API key (AGENTJOBS_API_KEY); it travels only in the Authorization header. */
  key: string;
  version: string;
}

/**
 * Connects to the server's `/mcp` (which checks the key: a bad one fails here, before stdio
 * starts), then serves stdio until its input ends.
 */
export async function serveMcpOverStdio({ url, key, version }: StdioRelayOptions): Promise<void> {
  const upstream = new Client({ name: 'agentjobs-mcp-stdio', version });
  await upstream.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', `${url.replace(/\/+$/, '')}/`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  const server = new Server(
    { name: 'agentjobs', version },
    {
      capabilities: { tools: {} },
      ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() } : {}),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await upstream.close();
}
