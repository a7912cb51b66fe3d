import { CliError } from './output.js';

/**
 * A small client of the v2 API for the `job` commands. It reads AGENTJOBS_URL and
 * AGENTJOBS_API_KEY; the key only ever travels in the Authorization header.
 */
export class ApiClient {
  readonly baseUrl: string;
  readonly #key: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const key = env.AGENTJOBS_API_KEY;
    if (!key)
      throw new CliError(
        'Set AGENTJOBS_API_KEY to an API key (make one with: agentjobs key create --project ID).',
      );
    this.#key = key;
    this.baseUrl = (env.AGENTJOBS_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#key}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new CliError(
        `Cannot reach ${this.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`,
        'unreachable',
      );
    }
    const text = await response.text();
    let payload: unknown;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      throw new CliError(
        `${this.baseUrl} answered ${response.status} with something that is not JSON.`,
        'bad_response',
      );
    }
    if (!response.ok) {
      const { error, code } = (payload ?? {}) as { error?: string; code?: string };
      throw new CliError(
        `${error ?? `HTTP ${response.status}`} (${code ?? response.status})`,
        code ?? 'http_error',
      );
    }
    return payload as T;
  }
}
