import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiKey } from '../../domain/api-key.js';
import { AppError } from '../../domain/errors.js';
import { IN_PROCESS_HEADER, isInProcessCredential } from '../../http/in-process.js';
import type { Store } from '../../store/store.js';
import { authenticate } from '../auth.js';
import type { Lifecycle } from './lifecycle.js';

export interface ApiKeyAuthOptions {
  store: Store;
  lifecycle: Lifecycle;
  /**
   * The credential of this process's own in-process calls (the dashboard starting a job), or none.
   * A request that carries it acts as `IN_PROCESS_KEY`; the signed-in admin may do anything.
   */
  inProcessCredential?: string | undefined;
}

/**
 * What an in-process call acts as: an instance key with both scopes, never stored, so it cannot
 * be revoked, listed or used from outside.
 */
export const IN_PROCESS_KEY: Readonly<ApiKey> = Object.freeze<ApiKey>({
  id: 'in-process',
  projectId: null,
  name: 'dashboard',
  prefix: '',
  scopes: ['read', 'write'],
  ipAllowlist: null,
  expiresAt: null,
  createdAt: new Date(0).toISOString(),
  lastUsedAt: null,
  revokedAt: null,
});

/**
 * Every route of the scope it is registered in needs an admin API key (`request.apiKey`). While the
 * process drains, writes answer 503 so that clients retry against another instance; reads go on.
 */
export const apiKeyAuth = fp(
  async (app: FastifyInstance, { store, lifecycle, inProcessCredential }: ApiKeyAuthOptions) => {
    // Declared, so that every request object has the field from birth: set on a request that lacks
    // it, V8 would have to change the object's shape on every authenticated request.
    app.decorateRequest('apiKey', undefined);
    app.addHook('onRequest', async (request) => {
      if (lifecycle.draining && request.method !== 'GET') {
        throw new AppError('unavailable', 'The server is shutting down; retry against another instance.', {
          retryAfterSeconds: 5,
        });
      }
      request.apiKey = inProcess(request, inProcessCredential) ?? (await authenticate(store, request));
    });
  },
);

/** The in-process key when the request carries this process's credential; 401 for a wrong one. */
function inProcess(request: FastifyRequest, credential: string | undefined): ApiKey | undefined {
  const presented = request.headers[IN_PROCESS_HEADER];
  if (presented === undefined) return undefined;
  if (credential && typeof presented === 'string' && isInProcessCredential(credential, presented))
    return IN_PROCESS_KEY;
  throw new AppError('unauthorized', 'The API key is not valid.');
}
