import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { closedSignal, streamJobEvents } from '../../http/event-stream.js';
import { getJob, listEvents } from '../../operations/pages.js';
import type { Store } from '../../store/store.js';
import { watchKeys } from '../key-watch.js';
import {
  commonErrors,
  errorResponse,
  eventListSchema,
  jobNotFound,
  jobParams,
  listEventsQuery,
} from '../schemas.js';

export interface EventRoutesOptions {
  store: Store;
  /** How often a quiet stream sends a comment so that proxies keep it open. */
  keepAliveMs?: number;
  /**
   * Live streams one API key may hold open at once, in this process; one more gets 429. Counted
   * per process: behind a load balancer a key may hold this many on each API process.
   */
  maxStreamsPerKey?: number;
  /**
   * How often the keys of open streams are read again; a stream ends this long at most after its
   * key is revoked or expires, whichever process revoked it.
   */
  keyCheckMs?: number;
}

const wantsStream = (accept: string | undefined) => accept?.includes('text/event-stream') ?? false;

/**
 * The agent's activity: a JSON page (`?after=<seq>&limit=`), or with `Accept: text/event-stream` a
 * live Server-Sent Events stream. Each SSE message has `id: <seq>`, so a client that reconnects
 * with `Last-Event-ID` resumes exactly where it stopped. The stream ends once the job is no longer
 * active and every event has been sent (a follow-up makes it active again; reconnect to follow),
 * or within `keyCheckMs` of its key being revoked or expiring, with a last comment saying why.
 */
export const eventRoutes: FastifyPluginAsyncZod<EventRoutesOptions> = async (
  app,
  { store, keepAliveMs = 15_000, maxStreamsPerKey = 20, keyCheckMs = 1000 },
) => {
  /** Open live streams per API key id. */
  const open = new Map<string, number>();
  const keys = watchKeys({ store, log: app.log, everyMs: keyCheckMs });
  app.addHook('onClose', async () => keys.stop());

  app.get(
    '/v2/agent/:projectId/job/:jobId/events',
    {
      schema: {
        operationId: 'listJobEvents',
        tags: ['Events'],
        summary: "A job's activity",
        description:
          "The agent's activity, oldest first: a JSON page of events after a seq, or with Accept: text/event-stream a live Server-Sent Events stream. Each SSE message has `id: <seq>`, `event: <type>` and the event as JSON in `data`; reconnect with Last-Event-ID to resume exactly. The stream ends when the job is no longer active and every event was sent.",
        params: jobParams,
        querystring: listEventsQuery,
        response: {
          200: {
            description: 'A page of events, or a live event stream',
            content: {
              'application/json': { schema: eventListSchema },
              'text/event-stream': {
                schema: z.string().describe('Server-Sent Events; each data line holds a JobEvent as JSON'),
              },
            },
          },
          ...commonErrors,
          404: jobNotFound,
          429: errorResponse('rate_limited: this key holds the most live streams allowed; see Retry-After'),
        },
      },
    },
    async (request, reply) => {
      const { projectId, jobId } = request.params;
      const { after, limit } = request.query;
      await getJob(store, projectId, jobId);

      if (wantsStream(request.headers.accept)) {
        const lastEventId = request.headers['last-event-id'];
        const resumeFrom =
          typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) : after;
        const keyId = request.apiKey?.id ?? '';
        const holding = open.get(keyId) ?? 0;
        if (holding >= maxStreamsPerKey) {
          throw new AppError(
            'rate_limited',
            `This key already has ${holding} live event streams open, the most allowed; close one first.`,
            { retryAfterSeconds: 5 },
          );
        }
        open.set(keyId, holding + 1);
        const cutOff = new AbortController();
        // The dashboard's own calls act as a key that is never stored, so never revoked.
        const unwatch = request.apiKey ? keys.watch(keyId, (reason) => cutOff.abort(reason)) : () => {};
        try {
          return await streamJobEvents(reply, {
            store,
            projectId,
            jobId,
            after: resumeFrom,
            keepAliveMs,
            signal: closedSignal(reply),
            cutOff: cutOff.signal,
          });
        } finally {
          unwatch();
          const left = (open.get(keyId) ?? 1) - 1;
          if (left > 0) open.set(keyId, left);
          else open.delete(keyId);
        }
      }

      return listEvents(store, jobId, { after, limit });
    },
  );
};
