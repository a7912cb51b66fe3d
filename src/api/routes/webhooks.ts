/**
 * The webhook routes (docs/webhooks.md): a project's endpoints, their delivery log, and
 * redelivery. Authentication and scopes are the v2 hook's (`read` to list, `write` to change); an
 * endpoint of another project is 404 like one that does not exist. The rules are the endpoint
 * operations' (`operations/webhook-endpoints.ts`), shared with the dashboard.
 */

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointDeps,
} from '../../operations/webhook-endpoints.js';
import { commonErrors, errorResponse, jsonResponse, projectParams } from '../schemas.js';
import {
  createWebhookBody,
  deliveryListSchema,
  deliveryParams,
  deliverySchema,
  listDeliveriesQuery,
  updateWebhookBody,
  webhookListSchema,
  webhookParams,
  webhookSchema,
  webhookWithSecretSchema,
} from '../webhook-schemas.js';

/** What the routes need: the endpoint operations' (`operations/webhook-endpoints.ts`). */
export type WebhookRoutesOptions = WebhookEndpointDeps;

const notFoundResponse = errorResponse(
  'project_not_found, webhook_not_found: no such project, or no such endpoint in it',
);
const errors = { ...commonErrors, 404: notFoundResponse };
const refused = errorResponse(
  'webhook_url_not_allowed: the URL is not http(s), has credentials, or names a private address',
);
/** The app as a plugin of these routes gets it: zod-typed. */
type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

const tags = ['Webhooks'];
const BASE = '/v2/agent/:projectId/webhooks';
const ONE = `${BASE}/:webhookId`;

/** Create and list: the project's endpoints. */
function collectionRoutes(app: ZodApp, deps: WebhookEndpointDeps) {
  app.post(
    BASE,
    {
      schema: {
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint',
        description:
          "Adds an endpoint that gets the project's job events, signed with the Standard Webhooks scheme. The answer holds its secret, shown only here.",
        tags,
        params: projectParams,
        body: createWebhookBody,
        response: {
          201: jsonResponse('The endpoint, with its secret', webhookWithSecretSchema),
          ...errors,
          422: refused,
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const { endpoint, secret } = await createWebhookEndpoint(deps, projectId, request.body);
      request.log.info({ projectId, webhookId: endpoint.id }, 'webhook endpoint created');
      return reply
        .code(201)
        .header('location', `/v2/agent/${projectId}/webhooks/${endpoint.id}`)
        .send({ ...endpoint, secret });
    },
  );

  app.get(
    BASE,
    {
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        description: "The project's endpoints, without their secrets.",
        tags,
        params: projectParams,
        response: { 200: jsonResponse('The endpoints', webhookListSchema), ...errors },
      },
    },
    async (request) => ({ webhooks: await listWebhookEndpoints(deps, request.params.projectId) }),
  );
}

/** Get, change and delete one endpoint. */
function endpointRoutes(app: ZodApp, deps: WebhookEndpointDeps) {
  app.get(
    ONE,
    {
      schema: {
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint',
        description: 'One endpoint, without its secret.',
        tags,
        params: webhookParams,
        response: { 200: jsonResponse('The endpoint', webhookSchema), ...errors },
      },
    },
    async (request) => getWebhookEndpoint(deps, request.params.projectId, request.params.webhookId),
  );

  app.patch(
    ONE,
    {
      schema: {
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint',
        description: 'Changes the URL, the event types, whether it is enabled, or its description.',
        tags,
        params: webhookParams,
        body: updateWebhookBody,
        response: { 200: jsonResponse('The endpoint as changed', webhookSchema), ...errors, 422: refused },
      },
    },
    async (request) =>
      updateWebhookEndpoint(deps, request.params.projectId, request.params.webhookId, request.body),
  );

  app.delete(
    ONE,
    {
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its delivery log.',
        tags,
        params: webhookParams,
        response: { 204: z.null().describe('Deleted'), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId, webhookId } = request.params;
      await deleteWebhookEndpoint(deps, projectId, webhookId);
      request.log.info({ projectId, webhookId }, 'webhook endpoint deleted');
      return reply.code(204).send(null);
    },
  );
}

/** Rotate the secret; the delivery log and redelivery. */
function secretAndDeliveryRoutes(app: ZodApp, deps: WebhookEndpointDeps) {
  app.post(
    `${ONE}/rotate-secret`,
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret (the old one still signs for 24 hours)',
        description: 'Makes a new secret; for 24 hours deliveries carry a signature with each.',
        tags,
        params: webhookParams,
        response: {
          200: jsonResponse('The endpoint, with its new secret', webhookWithSecretSchema),
          ...errors,
        },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params;
      const { endpoint, secret } = await rotateWebhookSecret(deps, projectId, webhookId);
      request.log.info({ projectId, webhookId }, 'webhook secret rotated');
      return { ...endpoint, secret };
    },
  );

  app.get(
    `${ONE}/deliveries`,
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries with their attempts, newest first',
        description:
          "The endpoint's deliveries, newest first, each with every attempt; pass nextCursor as cursor for the next page.",
        tags,
        params: webhookParams,
        querystring: listDeliveriesQuery,
        response: { 200: jsonResponse('A page of deliveries', deliveryListSchema), ...errors },
      },
    },
    async (request) =>
      listWebhookDeliveries(deps, request.params.projectId, request.params.webhookId, request.query),
  );

  app.post(
    `${ONE}/deliveries/:deliveryId/redeliver`,
    {
      schema: {
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again now',
        description: 'Queues the delivery to be sent again at once, with the same webhook-id.',
        tags,
        params: deliveryParams,
        response: { 202: jsonResponse('The delivery, queued', deliverySchema), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId, webhookId, deliveryId } = request.params;
      return reply.code(202).send(await redeliverWebhookDelivery(deps, projectId, webhookId, deliveryId));
    },
  );
}

/** The routes parse and answer; every rule is the endpoint operations'. */
export const webhookRoutes: FastifyPluginAsyncZod<WebhookRoutesOptions> = async (app, deps) => {
  collectionRoutes(app, deps);
  endpointRoutes(app, deps);
  secretAndDeliveryRoutes(app, deps);
};
