import { type AgentJobsClient, AgentJobsError, createClient } from '../client/index.js';
import { CliError } from './output.js';

/**
 * The typed client (`agentjobs/client`) for the `job` commands, from AGENTJOBS_URL and
 * AGENTJOBS_API_KEY; the key only ever travels in the Authorization header.
 */
export function clientFromEnv(env: NodeJS.ProcessEnv = process.env): AgentJobsClient {
  const apiKey = env.AGENTJOBS_API_KEY;
  if (!apiKey) {
    throw new CliError(
      'Set AGENTJOBS_API_KEY to an API key (make one with: agentjobs key create --project ID).',
    );
  }
  return createClient({ baseUrl: env.AGENTJOBS_URL ?? 'http://127.0.0.1:8080', apiKey });
}

/** An API error as the command line says it: the message and its code, in one line. */
export function cliErrorOf(error: AgentJobsError): CliError {
  const message = error.code === 'unreachable' ? error.message : `${error.message} (${error.code})`;
  return new CliError(message, error.code);
}

export { AgentJobsError };
