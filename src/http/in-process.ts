/**
 * How the dashboard calls the v2 API inside the process it runs in, so that what it does through
 * the API (start a job) takes the API's own path: validation, the hourly budget, the active-job
 * cap, idempotency and the same errors. `api/` checks the credential, `web/` calls; neither
 * imports the other, and `server.ts` hands both the same credential.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * The header that carries the in-process credential. `app.inject` requests never touch a socket,
 * so the credential never leaves the process; a request from outside that names the header is
 * checked like any other credential and refused unless it knows the value.
 */
export const IN_PROCESS_HEADER = 'x-agentjobs-in-process';

/** A credential for one process's lifetime: random, held in memory only, never logged. */
export const inProcessCredential = (): string => randomBytes(32).toString('base64url');

/** Whether `presented` is the credential, in constant time. */
export function isInProcessCredential(credential: string, presented: string): boolean {
  const a = Buffer.from(credential);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The API's answer to one in-process call. */
export interface InProcessAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/** One call of a v2 route: the path, the JSON body and extra headers (an Idempotency-Key). */
export type InProcessApi = (
  method: 'GET' | 'POST',
  path: string,
  options?: { body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
) => Promise<InProcessAnswer>;

/** Calls `app`'s own routes with the in-process credential. */
export function inProcessApi(app: FastifyInstance, credential: string): InProcessApi {
  return async (method, path, options = {}) => {
    const response = await app.inject({
      method,
      url: path,
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      headers: {
        [IN_PROCESS_HEADER]: credential,
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
    let body: unknown = null;
    try {
      body = response.json();
    } catch {
      // A 204 or a body that is not JSON: the status says enough.
    }
    return { status: response.statusCode, headers: response.headers, body };
  };
}
