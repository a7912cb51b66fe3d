import type { FastifyReply } from 'fastify';
import type { JobEvent } from '../domain/events.js';
import type { Unwatch } from '../store/events.js';
import type { Store } from '../store/store.js';

/** Aborts when the client goes away. */
export function closedSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => controller.abort());
  return controller.signal;
}

/** The API's SSE message for an event: its id is the seq, so Last-Event-ID resumes exactly. */
const apiMessage = (event: JobEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** What a stream reads: a job's events, woken by their notifications, and whether it is still active. */
export interface JobEventSource {
  events: Pick<Store['events'], 'watch' | 'list'>;
  jobs: Pick<Store['jobs'], 'get'>;
}

export interface StreamOptions {
  store: JobEventSource;
  projectId: string;
  jobId: string;
  after: number;
  keepAliveMs: number;
  signal: AbortSignal;
  /** One SSE message per event; the dashboard sends rendered HTML instead of the API's JSON. */
  format?: (event: JobEvent) => string;
  /** Written once the job is no longer active and every event has been sent. */
  finalMessage?: string;
  /**
   * Asked now and then while the stream is open; the stream ends when it answers false. The
   * dashboard's streams end with the session they were opened in.
   */
  stillAllowed?: () => Promise<boolean>;
  /**
   * Ends the stream when it aborts, after a last SSE comment giving its reason (a message): the
   * API ends a stream this way once its key is revoked or expires. A comment, so that clients
   * which take every message for a job event see none that is not; they learn why from the 401
   * that their reconnection gets.
   */
  cutOff?: AbortSignal;
}

/** How often `stillAllowed` is asked. */
const RECHECK_MS = 15_000;

/**
 * How often a stream looks for events without being woken: only a safety net, for a notification
 * lost on its way (wake-ups come from `store.events.watch`).
 */
export const FALLBACK_POLL_MS = 30_000;

const PAGE = 500;

/**
 * Streams a job's events as Server-Sent Events until the job stops being active or the client
 * leaves. An idle stream costs no database work: it reads only when woken by a notification for
 * its job (see `store.events.watch`), and otherwise every `FALLBACK_POLL_MS`.
 */
export async function streamJobEvents(reply: FastifyReply, options: StreamOptions) {
  const { store, projectId, jobId, keepAliveMs, signal, format = apiMessage } = options;
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

  // Set by a wake-up that came while the stream was reading, so that it reads once more.
  let woken = true;
  let resume: (() => void) | null = null;
  const wake = () => {
    woken = true;
    resume?.();
  };
  signal.addEventListener('abort', wake);
  const { cutOff } = options;
  cutOff?.addEventListener('abort', wake);
  const ended = () => signal.aborted || cutOff?.aborted === true;
  let unwatch: Unwatch | null = null;
  let after = options.after;
  let quietSince = Date.now();
  let checkedAt = Date.now();
  let readAt = 0;
  try {
    // Watching starts before the first read, so that nothing appended after that read goes unheard.
    unwatch = await store.events.watch(jobId, wake);
    // The job's status is read at the start, when a `status` event came, and on the fallback poll.
    let statusMayHaveChanged = true;
    while (!ended()) {
      if (woken || Date.now() - readAt >= FALLBACK_POLL_MS) {
        const polled = !woken;
        woken = false;
        readAt = Date.now();
        const events = await store.events.list(jobId, after, PAGE);
        for (const event of events) {
          send(event);
          after = event.seq;
          if (event.type === 'status') statusMayHaveChanged = true;
        }
        if (events.length > 0) quietSince = Date.now();
        if (events.length === PAGE) {
          woken = true;
          continue;
        }
        if (statusMayHaveChanged || polled) {
          statusMayHaveChanged = false;
          const job = await store.jobs.get(projectId, jobId);
          // Events of a finished job are all written before its status changes, so none can follow.
          if (job?.status !== 'active') {
            const rest = await store.events.list(jobId, after, PAGE);
            for (const event of rest) send(event);
            if (options.finalMessage) raw.write(options.finalMessage);
            break;
          }
        }
      }
      if (options.stillAllowed && Date.now() - checkedAt >= RECHECK_MS) {
        if (!(await options.stillAllowed())) break;
        checkedAt = Date.now();
      }
      if (Date.now() - quietSince >= keepAliveMs) {
        raw.write(': keep-alive\n\n');
        quietSince = Date.now();
      }
      if (woken || ended()) continue;
      const now = Date.now();
      const until = Math.min(
        quietSince + keepAliveMs,
        readAt + FALLBACK_POLL_MS,
        options.stillAllowed ? checkedAt + RECHECK_MS : Number.POSITIVE_INFINITY,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, until - now));
        resume = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      resume = null;
    }
  } catch (error) {
    reply.request.log.warn({ err: error }, 'event stream ended by an error');
  } finally {
    signal.removeEventListener('abort', wake);
    cutOff?.removeEventListener('abort', wake);
    unwatch?.();
    if (cutOff?.aborted && !signal.aborted)
      raw.write(`: ${String(cutOff.reason).replace(/[\r\n]+/g, ' ')}\n\n`);
    raw.end();
  }
}
