/**
 * The webhook routes (docs/webhooks.md): a project's endpoints, their delivery log, and
 * redelivery. Authentication and scopes are the v2 hook's (`read` to list, `write` to change); an
 * endpoint of another project is 404 like one that does not exist.
 */

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config/config.js';
import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import { AppError } from '../../domain/errors.js';
import type { SecretBox } from '../../store/secrets.js';
import type { Store } from '../../store/store.js';
import { checkWebhookUrl, WebhookUrlError } from '../../webhooks/address.js';
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

export interface WebhookRoutesOptions {
  config: { webhooks: Pick<Config['webhooks'], 'allowPrivate'> };
  store: Store;
  /** The process's secret box: endpoints' signing secrets are sealed with it. */
  secrets: () => SecretBox;
}

const notFoundResponse = errorResponse(
  'project_not_found, webhook_not_found: no such project, or no such endpoint in it',
);
const errors = { ...commonErrors, 404: notFoundResponse };
const urlRefused = errorResponse(
  'webhook_url_not_allowed: the URL is not http(s), has credentials, or names a private address',
);
const tags = ['Webhooks'];

const notFound = (webhookId: string) =>
  new AppError('webhook_not_found', `No webhook ${webhookId} in this project.`);

export const webhookRoutes: FastifyPluginAsyncZod<WebhookRoutesOptions> = async (
  app,
  { config, store, secrets },
) => {
  const allowedUrl = async (url: string) => {
    try {
      await checkWebhookUrl(url, config.webhooks.allowPrivate);
      return url;
    } catch (error) {
      if (!(error instanceof WebhookUrlError)) throw error;
      throw new AppError('webhook_url_not_allowed', error.message, {
        details: [{ path: 'body.url', message: error.message }],
      });
    }
  };
  const endpointOf = async (projectId: string, webhookId: string) => {
    const endpoint = await store.webhooks.get(projectId, webhookId);
    if (!endpoint) throw notFound(webhookId);
    return endpoint;
  };
  const base = '/v2/agent/:projectId/webhooks';
  const one = `${base}/:webhookId`;

  app.post(
    base,
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
          422: urlRefused,
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      if (!(await store.projects.get(projectId)))
        throw new AppError('project_not_found', `No project ${projectId}.`);
      const url = await allowedUrl(request.body.url);
      const { endpoint, secret } = await store.webhooks.create(
        { projectId, url, events: request.body.events ?? null, description: request.body.description ?? '' },
        secrets(),
      );
      request.log.info({ projectId, webhookId: endpoint.id }, 'webhook endpoint created');
      return reply
        .code(201)
        .header('location', `/v2/agent/${projectId}/webhooks/${endpoint.id}`)
        .send({ ...endpoint, secret });
    },
  );

  app.get(
    base,
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
    async (request) => ({ webhooks: await store.webhooks.list(request.params.projectId) }),
  );

  app.get(
    one,
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
    async (request) => endpointOf(request.params.projectId, request.params.webhookId),
  );

  app.patch(
    one,
    {
      schema: {
        operationId: 'updateWebhook',
        summary: 'Change a webhook endpoint',
        description: 'Changes the URL, the event types, whether it is enabled, or its description.',
        tags,
        params: webhookParams,
        body: updateWebhookBody,
        response: { 200: jsonResponse('The endpoint as changed', webhookSchema), ...errors, 422: urlRefused },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params;
      const { url, ...rest } = request.body;
      const change = { ...rest, ...(url !== undefined ? { url: await allowedUrl(url) } : {}) };
      const endpoint = await store.webhooks.update(projectId, webhookId, change);
      if (!endpoint) throw notFound(webhookId);
      return endpoint;
    },
  );

  app.delete(
    one,
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
      if (!(await store.webhooks.remove(projectId, webhookId))) throw notFound(webhookId);
      request.log.info({ projectId, webhookId }, 'webhook endpoint deleted');
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${one}/rotate-secret`,
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
      const rotated = await store.webhooks.rotateSecret(projectId, webhookId, secrets());
      if (!rotated) throw notFound(webhookId);
      request.log.info({ projectId, webhookId }, 'webhook secret rotated');
      return { ...rotated.endpoint, secret: rotated.secret };
    },
  );

  app.get(
    `${one}/deliveries`,
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
    async (request) => {
      const { projectId, webhookId } = request.params;
      await endpointOf(projectId, webhookId);
      const { limit, cursor } = request.query;
      const before = cursor === undefined ? undefined : decodeCursor(cursor);
      const page = await store.webhooks.listDeliveries(webhookId, { limit, ...(before ? { before } : {}) });
      const last = page.deliveries.at(-1);
      return { deliveries: page.deliveries, nextCursor: page.more && last ? encodeCursor(last.id) : null };
    },
  );

  app.post(
    `${one}/deliveries/:deliveryId/redeliver`,
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
      await endpointOf(projectId, webhookId);
      const delivery = await store.webhooks.redeliver(webhookId, deliveryId);
      if (!delivery) throw new AppError('delivery_not_found', `No delivery ${deliveryId} of this webhook.`);
      return reply.code(202).send(delivery);
    },
  );
};
