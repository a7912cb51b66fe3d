import type { Command } from 'commander';
import { CliError } from '../output.js';

const VERSION = '0.1.0';

export function registerMcpCommand(program: Command) {
  program
    .command('mcp')
    .description(
      'Serve the MCP tools over stdio for a local assistant, as a client of AGENTJOBS_URL with AGENTJOBS_API_KEY',
    )
    .action(async () => {
      const key = process.env.AGENTJOBS_API_KEY;
      if (!key) {
        throw new CliError(
          'Set AGENTJOBS_API_KEY to an API key (make one with: agentjobs key create --project ID).',
        );
      }
      const url = process.env.AGENTJOBS_URL ?? 'http://127.0.0.1:8080';
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
