/**
 * The zod schemas of the webhook routes (docs/webhooks.md): they validate requests and,
 * through `@fastify/swagger`, describe the routes in the OpenAPI document.
 */
import { z } from 'zod';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../domain/webhook.js';
import { MAX_WEBHOOK_DESCRIPTION_CHARS } from '../operations/webhook-endpoints.js';

// URLs are checked by the endpoint operations (`operations/webhook-endpoints.ts`: an empty one is
// 400 `invalid_request`, a refused one 422 webhook_url_not_allowed with the reason), the same
// for the dashboard; here only that it is text of a size no URL rule needs to look further at.
const url = z.string().max(65_536).describe('The receiver, http(s)');
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .nullable()
  .describe('Event types to send; absent, null or empty: all of them');
const description = z
  .string()
  .max(MAX_WEBHOOK_DESCRIPTION_CHARS, `must be at most ${MAX_WEBHOOK_DESCRIPTION_CHARS} characters`);

export const createWebhookBody = z.strictObject({
  url,
  events: events.optional(),
  description: description.optional(),
});

export const updateWebhookBody = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  enabled: z.boolean().optional(),
  description: description.optional(),
});

export const webhookParams = z.strictObject({
  projectId: z.string().min(1).max(100),
  webhookId: z.string().min(1).max(100),
});

export const deliveryParams = webhookParams.extend({ deliveryId: z.string().min(1).max(100) });

export const listDeliveriesQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .default(20)
    .describe('Page size, 1 to 100'),
  cursor: z.string().max(200).optional().describe('nextCursor from the previous page'),
});

export const webhookSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).nullable(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable(),
    failingSince: z.string().nullable(),
    previousSecretExpiresAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });

export const webhookWithSecretSchema = webhookSchema
  .extend({ secret: z.string().describe('whsec_…: shown only in this answer') })
  .meta({ id: 'WebhookWithSecret' });

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) });

export const deliverySchema = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    event: z.object({
      id: z.string(),
      type: z.enum(WEBHOOK_EVENT_TYPES),
      timestamp: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    attempts: z.array(
      z.object({
        at: z.string(),
        responseStatus: z.number().int().nullable(),
        durationMs: z.number(),
        error: z.string().nullable(),
        responseExcerpt: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = z.object({
  deliveries: z.array(deliverySchema),
  nextCursor: z.string().nullable(),
});
