import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { drainingError, type Lifecycle } from '../../http/lifecycle.js';
import type { Store } from '../../store/store.js';
import { authenticate } from '../auth.js';

export interface ApiKeyAuthOptions {
  store: Store;
  lifecycle: Lifecycle;
}

/**
 * Every route of the scope it is registered in needs an admin API key (`request.apiKey`). While the
 * process drains, writes answer 503 so that clients retry against another instance; reads go on.
 */
export const apiKeyAuth = fp(async (app: FastifyInstance, { store, lifecycle }: ApiKeyAuthOptions) => {
  // Declared, so that every request object has the field from birth: set on a request that lacks
  // it, V8 would have to change the object's shape on every authenticated request.
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request) => {
    if (lifecycle.draining && request.method !== 'GET') {
      throw drainingError();
    }
    request.apiKey = await authenticate(store, request);
  });
});
