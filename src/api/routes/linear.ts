/**
 * Linear (docs/automations.md, "Linear"): `POST /v2/hooks/{projectId}/linear`, Linear's webhook,
 * with no API key (Linear's signature under the project's Linear secret instead; every rule in
 * `operations/linear-receipt.ts`), and `PUT`/`DELETE /v2/agent/{projectId}/linear/secret`, which set
 * and remove that secret behind a `write` key (`operations/linear-secret.ts`).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type LinearReceiptDeps, receiveLinearHook } from '../../operations/linear-receipt.js';
import { clearLinearSecret, type LinearSecretDeps, setLinearSecret } from '../../operations/linear-secret.js';
import { commonErrors, errorResponse, jsonResponse, projectParams } from '../schemas.js';
import { HOOK_BODY_LIMIT_BYTES, hookReceiptSchema, rawBody } from './hooks.js';

/** The receiver: Linear's deliveries, recorded for the automations. */
export const linearHookRoutes: FastifyPluginAsyncZod<LinearReceiptDeps> = async (app, options) => {
  await rawBody(app);
  app.post(
    '/v2/hooks/:projectId/linear',
    {
      bodyLimit: HOOK_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'receiveLinearHook',
        summary: 'Receive a Linear webhook',
        description:
          "The Linear webhook of the project (no API key: Linear signs the body with the project's Linear secret). A delivery whose webhookTimestamp is more than a minute from now is refused. Issue events (created, or labelled) are recorded once per delivery id within 7 days; other events are answered 202 and ignored.",
        tags: ['Code-host hooks'],
        security: [],
        params: projectParams,
        headers: z.looseObject({
          'linear-signature': z
            .string()
            .optional()
            .describe("The hex HMAC-SHA256 of the raw body under the project's Linear secret"),
          'linear-delivery': z.string().optional().describe('The delivery id, for deduplication'),
          'linear-event': z.string().optional().describe('Issue (others are ignored)'),
        }),
        body: z.unknown().describe('The Linear event payload, as Linear sends it (JSON, at most 1 MiB)'),
        response: {
          202: jsonResponse('Recorded, a repeat, or ignored', hookReceiptSchema),
          400: errorResponse(
            'invalid_json, invalid_request: the body is not JSON, or lacks a part of the event',
          ),
          401: errorResponse(
            'unauthorized: no Linear secret set, a missing or wrong Linear-Signature, or a stale webhookTimestamp',
          ),
          404: errorResponse('project_not_found: no such project'),
          413: errorResponse('payload_too_large: the body is over 1 MiB'),
          415: errorResponse('unsupported_media_type: the body is not application/json'),
          503: errorResponse('unavailable: the database is unreachable; Linear retries'),
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { receipt, deliveryId, eventName } = await receiveLinearHook(options, {
        projectId,
        headers: request.headers,
        body,
      });
      request.log.info(
        {
          projectId,
          host: 'linear',
          deliveryId,
          event: eventName,
          outcome: receipt.outcome,
          reason: receipt.reason,
        },
        'linear hook',
      );
      return reply.code(202).send(receipt);
    },
  );
};

const secretBody = z.strictObject({
  secret: z.string().min(1).max(256).describe("The signing secret Linear shows for the project's webhook"),
});

/** Setting and removing the project's Linear secret (a `write` key of the project). */
export const linearSecretRoutes: FastifyPluginAsyncZod<LinearSecretDeps> = async (app, deps) => {
  const path = '/v2/agent/:projectId/linear/secret';
  const tags = ['Automations'];
  const errors = { ...commonErrors, 404: errorResponse('project_not_found: no such project') };
  app.put(
    path,
    {
      schema: {
        operationId: 'setLinearSecret',
        summary: 'Set the Linear secret',
        description:
          "Sets the signing secret of the project's Linear webhook (Linear shows it when the webhook is made), in place of any it had. It is sealed at rest and never shown back.",
        tags,
        params: projectParams,
        body: secretBody,
        response: { 204: z.null().describe('Set'), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      await setLinearSecret(deps, projectId, request.body.secret);
      request.log.info({ projectId }, 'linear secret set');
      return reply.code(204).send(null);
    },
  );
  app.delete(
    path,
    {
      schema: {
        operationId: 'deleteLinearSecret',
        summary: 'Remove the Linear secret',
        description: "Removes the project's Linear secret: Linear's deliveries are refused from now on.",
        tags,
        params: projectParams,
        response: { 204: z.null().describe('Removed (or there was none)'), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      await clearLinearSecret(deps, projectId);
      request.log.info({ projectId }, 'linear secret removed');
      return reply.code(204).send(null);
    },
  );
};
