/**
 * A `fetch` that tells the server about every HTTP request a code-host client sends (each attempt,
 * retries included), for `agentjobs_code_host_requests_total{host,outcome}`. Given to the clients
 * through their retry options; the hosts know nothing of metrics.
 */

/** How one request to a code host went. */
export type HostRequestOutcome = 'ok' | 'client_error' | 'rate_limited' | 'server_error' | 'network_error';

/** Told of every request a host's client sends; `server.ts` passes the metrics' counter. */
export type HostRequestObserver = (host: string, outcome: HostRequestOutcome) => void;

/** The outcome of an answered request: GitHub also says "rate limited" with a 403 and no quota left. */
export function outcomeOf(response: Response): HostRequestOutcome {
  const { status } = response;
  if (status === 429 || (status === 403 && response.headers.get('x-ratelimit-remaining') === '0')) {
    return 'rate_limited';
  }
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'ok';
}

/** `base` (the global fetch by default), reporting each request's outcome to `observe`. */
export function countedFetch(
  host: string,
  observe: HostRequestObserver,
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      // A request the job itself stopped is no news about the host.
      if (!init?.signal?.aborted) observe(host, 'network_error');
      throw error;
    }
    observe(host, outcomeOf(response));
    return response;
  };
}
