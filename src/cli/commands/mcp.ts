import type { Command } from 'commander';
import { serverFromEnv } from '../client.js';
import { CliError } from '../output.js';

const VERSION = '0.1.0';

export function registerMcpCommand(program: Command) {
  program
    .command('mcp')
    .description(
      'Serve the MCP tools over stdio for a local assistant, as a client of AGENTJOBS_URL with AGENTJOBS_API_KEY',
    )
    .action(async () => {
      const { url, apiKey: key } = serverFromEnv();
      // Loaded only for this command: the SDK is not small, and the other commands never need it.
      const { serveMcpOverStdio } = await import('../../mcp/stdio.js');
      try {
        await serveMcpOverStdio({ url, key, version: VERSION });
      } catch (error) {
        throw new CliError(
          `Cannot serve MCP from ${url}/mcp: ${(error as Error).message}`,
          'mcp_unavailable',
        );
      }
      process.exit(0);
    });
}
