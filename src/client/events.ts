import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type AgentJobsError, readError, unreachable } from './errors.js';
import { backoff, type FetchFunction, sleep } from './retry.js';
import type { CallOptions, EventPage, JobEvent } from './types.js';

export interface EventStreamOptions extends CallOptions {
  /** Start after this seq (0, the default, sends every event from the first). */
  after?: number;
  /** Reconnections in a row without a new event before giving up. Default 10. */
  maxReconnects?: number;
}

export interface EventStreamContext {
  url: string;
  authorization: string;
  fetch: FetchFunction;
  baseUrl: string;
  /** Whether the job is still active: asked when the server ends a stream. */
  stillActive(signal: AbortSignal | undefined): Promise<boolean>;
  /** A JSON page of events after a seq, to collect the last ones when a stream ended early. */
  eventsAfter(after: number, signal: AbortSignal | undefined): Promise<EventPage>;
  options: EventStreamOptions;
}

/** The first wait before reconnecting, until the server says (its `retry:` field). */
const DEFAULT_RETRY_MS = 1000;

/**
 * A job's events as they happen. The server ends a stream once the job is no longer active; a
 * stream that breaks (or that a proxy or a restarting server ends early) is reopened with
 * Last-Event-ID set to the last seq seen, and events at or below it are dropped, so each event
 * comes exactly once, in order.
 */
export async function* streamJobEvents(
  context: EventStreamContext,
): AsyncGenerator<JobEvent, void, undefined> {
  const { options } = context;
  const { signal } = options;
  const maxReconnects = options.maxReconnects ?? 10;
  let last = options.after ?? 0;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;

  const reconnectLater = async (error: AgentJobsError) => {
    failures += 1;
    if (failures > maxReconnects) throw error;
    const wait = error.retryAfter === null ? backoff(failures, retryMs, 30_000) : error.retryAfter * 1000;
    await sleep(wait, signal);
  };

  for (;;) {
    const url = new URL(context.url);
    url.searchParams.set('after', String(last));
    const request = new Request(url, {
      headers: {
        authorization: context.authorization,
        accept: 'text/event-stream',
        ...(last > 0 ? { 'last-event-id': String(last) } : {}),
      },
      ...(signal ? { signal } : {}),
    });
    let response: Response;
    try {
      response = await context.fetch(request);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      await reconnectLater(unreachable(context.baseUrl, error));
      continue;
    }
    if (!response.ok || !response.body) {
      const error = await readError(response);
      if (!error.retryable) throw error;
      await reconnectLater(error);
      continue;
    }

    const messages = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(
      new EventSourceParserStream({
        onRetry: (ms) => {
          retryMs = ms;
        },
      }),
    );
    const reader = messages.getReader();
    try {
      for (;;) {
        const { done, value: message } = await reader.read();
        if (done) break;
        const event = JSON.parse(message.data) as JobEvent;
        if (event.seq <= last) continue;
        last = event.seq;
        failures = 0;
        yield event;
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SyntaxError) throw error;
      // The connection broke mid-stream: resume from the last event seen.
      await reconnectLater(unreachable(context.baseUrl, error));
      continue;
    } finally {
      // Also when the caller stops iterating: close the connection.
      reader.cancel().catch(() => {});
    }

    // The server ended the stream. It does so when the job is done, but a server that is shutting
    // down (or a proxy's timeout) ends it too: then the job is still active, and the stream goes on.
    if (await context.stillActive(signal)) {
      await reconnectLater(unreachable(context.baseUrl, new Error('the event stream ended early')));
      continue;
    }
    // Events the job wrote before it ended that the stream did not bring yet.
    for (;;) {
      const page = await context.eventsAfter(last, signal);
      for (const event of page.events) {
        if (event.seq <= last) continue;
        last = event.seq;
        yield event;
      }
      if (page.nextCursor === null) return;
    }
  }
}
