import { type AgentJobsClient, AgentJobsError, createClient } from '../client/index.js';
import { CliError } from './output.js';

const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * The variables the `agentjobs` command reads as a client of a running server (`job`,
 * `automation`, `webhook`, `mcp`): read here only, and listed from here in the configuration
 * reference (`npm run config-reference`) beside the server's settings.
 */
export const CLIENT_VARIABLES = {
  AGENTJOBS_URL: `The server the client commands talk to (default \`${DEFAULT_URL}\`).`,
  AGENTJOBS_API_KEY: 'The API key the client commands send (`ajs_…`).',
  AGENTJOBS_PROJECT: 'The project the client commands act on when `--project` is not given.',
} as const satisfies Record<string, string>;

/** The server and the key the client commands use, from AGENTJOBS_URL and AGENTJOBS_API_KEY. */
export function serverFromEnv(env: NodeJS.ProcessEnv = process.env): { url: string; apiKey: string } {
  const apiKey = env.AGENTJOBS_API_KEY;
  if (!apiKey) {
    throw new CliError(
      'Set AGENTJOBS_API_KEY to an API key (make one with: agentjobs key create --project ID).',
    );
  }
  return { url: env.AGENTJOBS_URL ?? DEFAULT_URL, apiKey };
}

/** The project a client command acts on: `--project`, or AGENTJOBS_PROJECT. */
export function projectFromEnv(project: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = project ?? env.AGENTJOBS_PROJECT;
  if (!chosen) throw new CliError('Pass --project ID (or set AGENTJOBS_PROJECT).');
  return chosen;
}

/** The typed client (`agentjobs/client`) of the client commands; the key only ever travels in the Authorization header. */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): AgentJobsClient {
  const { url, apiKey } = serverFromEnv(env);
  return createClient({ baseUrl: url, apiKey });
}

/** An API error as the command line says it: the message and its code, in one line. */
export function cliErrorOf(error: AgentJobsError): CliError {
  const message = error.code === 'unreachable' ? error.message : `${error.message} (${error.code})`;
  return new CliError(message, error.code);
}

export { AgentJobsError };
