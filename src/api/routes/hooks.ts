/**
 * The code hosts' webhooks (docs/api.md#code-host-webhooks):
 * `POST /v2/hooks/{projectId}/{github|gitlab|gitea}`, with no API key: the host's own proof of the
 * project's hook secret instead. This route only takes the raw body (for the signature), hands it
 * to the hook receipt (`operations/hook-receipt.ts`, where every rule of a delivery lives) and answers
 * 202 with its receipt; a refusal is the receipt's typed error.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HOOK_HOSTS, type HookHost } from '../../domain/hook-secret.js';
import {
  HOOK_HOST_TITLES,
  type HookReceipt,
  type HookReceiptDeps,
  hookReceiver,
} from '../../operations/hook-receipt.js';
import { errorResponse, jsonResponse, projectParams } from '../schemas.js';

/** The largest delivery taken; beyond it, 413 (GitHub's own cap is 25 MB, its pushes are far smaller). */
export const HOOK_BODY_LIMIT_BYTES = 1024 * 1024;

/** What the receiver needs: the hook receipt's (`operations/hook-receipt.ts`). */
export type HookRoutesOptions = HookReceiptDeps;

export const hookReceiptSchema = z
  .object({
    outcome: z
      .enum(['recorded', 'duplicate', 'ignored'])
      .describe(
        'recorded: new; duplicate: this delivery id was seen in the last 7 days; ignored: nothing to do',
      ),
    duplicate: z.boolean(),
    eventId: z.string().nullable().describe('The recorded event (the first one, for a duplicate)'),
    reason: z.string().nullable().describe('Why an ignored delivery was ignored'),
  })
  .meta({ id: 'HookReceipt' }) satisfies z.ZodType<HookReceipt>;

const HEADERS: Record<HookHost, Record<string, string>> = {
  github: {
    'x-hub-signature-256': 'sha256= and the hex HMAC-SHA256 of the raw body under the hook secret',
    'x-github-event':
      'push, pull_request, issues, issue_comment, pull_request_review_comment (others are ignored)',
    'x-github-delivery': 'The delivery id, for deduplication',
  },
  gitlab: {
    'x-gitlab-token': 'The hook secret itself',
    'x-gitlab-event': 'Push Hook, Merge Request Hook, Note Hook, Issue Hook (others are ignored)',
    'x-gitlab-event-uuid': 'The delivery id, for deduplication',
  },
  gitea: {
    'x-gitea-signature': 'The hex HMAC-SHA256 of the raw body under the hook secret',
    'x-gitea-event': 'push, pull_request, issues, issue_comment, pull_request_comment (others are ignored)',
    'x-gitea-delivery': 'The delivery id, for deduplication',
  },
};

/** The raw body, for the signature: every media type the hosts send JSON as. */
export async function rawBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    /^application\/([\w.-]+\+)?json\s*(;|$)/i,
    { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );
}

/** The OpenAPI description of `host`'s route, and the validation of its parameters. */
function hookSchema(host: HookHost) {
  const title = HOOK_HOST_TITLES[host];
  return {
    operationId: `receive${host[0]?.toUpperCase()}${host.slice(1)}Hook`,
    summary: `Receive a ${title} webhook`,
    description: `The ${title} webhook of the project (no API key: the host proves the project's hook secret). Recorded before the answer, once per delivery id within 7 days; events not read, and repositories not the project's, are answered 202 and ignored.`,
    tags: ['Code-host hooks'],
    security: [],
    params: projectParams,
    headers: z.looseObject(
      Object.fromEntries(
        Object.entries(HEADERS[host]).map(([name, text]) => [name, z.string().optional().describe(text)]),
      ),
    ),
    body: z.unknown().describe(`The ${title} event payload, as the host sends it (JSON, at most 1 MiB)`),
    response: {
      202: jsonResponse('Recorded, a repeat, or ignored', hookReceiptSchema),
      400: errorResponse('invalid_json, invalid_request: the body is not JSON, or lacks a part of the event'),
      401: errorResponse('unauthorized: no hook secret made yet, or a missing or wrong signature'),
      404: errorResponse('project_not_found: no such project'),
      413: errorResponse('payload_too_large: the body is over 1 MiB'),
      415: errorResponse('unsupported_media_type: the body is not application/json'),
      503: errorResponse('unavailable: the database is unreachable; the host retries or redelivers'),
    },
  };
}

/** The receiver's routes: the body's bytes go to the hook receipt, its answer back as 202. */
export const hookRoutes: FastifyPluginAsyncZod<HookRoutesOptions> = async (app, options) => {
  await rawBody(app);
  const receive = hookReceiver(options);
  for (const host of HOOK_HOSTS) {
    app.post(
      `/v2/hooks/:projectId/${host}`,
      { bodyLimit: HOOK_BODY_LIMIT_BYTES, schema: hookSchema(host) },
      async (request, reply) => {
        const { projectId } = request.params;
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const { receipt, deliveryId, eventName } = await receive({
          projectId,
          host,
          headers: request.headers,
          body,
        });
        request.log.info(
          { projectId, host, deliveryId, event: eventName, outcome: receipt.outcome, reason: receipt.reason },
          'code-host hook',
        );
        return reply.code(202).send(receipt);
      },
    );
  }
};
