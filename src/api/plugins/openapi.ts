import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * The OpenAPI document, built from the routes' schemas, at `/v2/openapi.json`. Registered before the
 * routes so that it sees them.
 */
export const openApi = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'agentjobs',
        version: '2',
        description: 'Send a prompt; an AI agent edits the project repository and opens a pull request.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});
