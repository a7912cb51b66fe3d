/** The MCP SDK's own client, as the MCP suites drive the app's `/mcp` endpoint with it. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Every tool the endpoint lists, sorted. */
export const MCP_TOOLS = [
  'archive_job',
  'create_job',
  'get_job',
  'get_job_events',
  'list_automations',
  'list_jobs',
  'send_message',
  'trigger_automation',
];

/**
 * Clients of the endpoint at `url()` (read when one connects, so it may be known only once the
 * suite's `beforeAll` has run), each with a key; `closeAll` closes every one made, in `afterAll`.
 */
export function mcpConnections(url: () => URL) {
  const clients: Client[] = [];
  return {
    async connect(key: string): Promise<Client> {
      const client = new Client({ name: 'mcp-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(url(), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    call: async (client: Client, name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async closeAll() {
      for (const client of clients.splice(0)) await client.close();
    },
  };
}
