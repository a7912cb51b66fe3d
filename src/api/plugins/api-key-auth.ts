import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Store } from '../../store/store.js';
import { authenticate } from '../auth.js';

export interface ApiKeyAuthOptions {
  store: Store;
}

/**
 * Every route of the scope it is registered in needs an admin API key (`request.apiKey`). What a
 * draining process refuses (new jobs, follow-ups) the operations refuse themselves (`src/operations/`).
 */
export const apiKeyAuth = fp(async (app: FastifyInstance, { store }: ApiKeyAuthOptions) => {
  // Declared, so that every request object has the field from birth: set on a request that lacks
  // it, V8 would have to change the object's shape on every authenticated request.
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request) => {
    request.apiKey = await authenticate(store, request);
  });
});
