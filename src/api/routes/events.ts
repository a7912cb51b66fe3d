import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/errors.js';
import type { JobEvent } from '../../store/events.js';
import type { Store } from '../../store/store.js';
import { errorSchema, eventListSchema, jobParams, listEventsQuery } from '../schemas.js';

export interface EventRoutesOptions {
  store: Store;
  /** How often a live stream looks for new events; any process may have written them. */
  pollMs?: number;
  /** How often a quiet stream sends a comment so that proxies keep it open. */
  keepAliveMs?: number;
}

const wantsStream = (accept: string | undefined) => accept?.includes('text/event-stream') ?? false;

/**
 * The agent's activity: a JSON page (`?after=<seq>&limit=`), or with `Accept: text/event-stream` a
 * live Server-Sent Events stream. Each SSE message has `id: <seq>`, so a client that reconnects
 * with `Last-Event-ID` resumes exactly where it stopped. The stream ends once the job is no longer
 * active and every event has been sent (a follow-up makes it active again; reconnect to follow).
 */
export const eventRoutes: FastifyPluginAsyncZod<EventRoutesOptions> = async (
  app,
  { store, pollMs = 200, keepAliveMs = 15_000 },
) => {
  app.get(
    '/v2/agent/:projectId/job/:jobId/events',
    {
      schema: {
        summary: "The agent's activity (JSON, or a live SSE stream with Accept: text/event-stream)",
        params: jobParams,
        querystring: listEventsQuery,
        response: {
          200: eventListSchema,
          400: errorSchema,
          401: errorSchema,
          403: errorSchema,
          404: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const { projectId, jobId } = request.params;
      const { after, limit } = request.query;
      const job = await store.jobs.get(projectId, jobId);
      if (!job) throw new AppError('job_not_found', `No job ${jobId} in this project.`);

      if (wantsStream(request.headers.accept)) {
        const lastEventId = request.headers['last-event-id'];
        const resumeFrom =
          typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) : after;
        return streamJobEvents(reply, {
          store,
          projectId,
          jobId,
          after: resumeFrom,
          pollMs,
          keepAliveMs,
          signal: closedSignal(reply),
        });
      }

      const events = await store.events.list(jobId, after, limit + 1);
      const page = events.slice(0, limit);
      const last = page.at(-1);
      return { events: page, nextCursor: events.length > limit && last ? String(last.seq) : null };
    },
  );
};

/** Aborts when the client goes away. */
export function closedSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => controller.abort());
  return controller.signal;
}

/** The API's SSE message for an event: its id is the seq, so Last-Event-ID resumes exactly. */
const apiMessage = (event: JobEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

export interface StreamOptions {
  store: Store;
  projectId: string;
  jobId: string;
  after: number;
  pollMs: number;
  keepAliveMs: number;
  signal: AbortSignal;
  /** One SSE message per event; the dashboard sends rendered HTML instead of the API's JSON. */
  format?: (event: JobEvent) => string;
  /** Written once the job is no longer active and every event has been sent. */
  finalMessage?: string;
}

/** Streams a job's events as Server-Sent Events until the job stops being active or the client leaves. */
export async function streamJobEvents(reply: FastifyReply, options: StreamOptions) {
  const { store, projectId, jobId, pollMs, keepAliveMs, signal, format = apiMessage } = options;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Tells nginx-style proxies not to buffer the stream.
    'x-accel-buffering': 'no',
    'x-request-id': reply.request.id,
  });
  raw.write(`retry: 2000\n\n`);
  const send = (event: JobEvent) => raw.write(format(event));
  let after = options.after;
  let quietSince = Date.now();
  try {
    while (!signal.aborted) {
      const events = await store.events.list(jobId, after, 500);
      for (const event of events) {
        send(event);
        after = event.seq;
      }
      if (events.length > 0) quietSince = Date.now();
      if (events.length === 500) continue;
      const job = await store.jobs.get(projectId, jobId);
      // Events of a finished job are all written before its status changes, so none can follow.
      if (job?.status !== 'active') {
        const rest = await store.events.list(jobId, after, 500);
        for (const event of rest) send(event);
        if (options.finalMessage) raw.write(options.finalMessage);
        break;
      }
      if (Date.now() - quietSince >= keepAliveMs) {
        raw.write(': keep-alive\n\n');
        quietSince = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } catch (error) {
    reply.request.log.warn({ err: error }, 'event stream ended by an error');
  } finally {
    raw.end();
  }
}
