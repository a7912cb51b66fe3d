import createFetchClient, { type Client } from 'openapi-fetch';
import { automationCalls } from './automations.js';
import { AgentJobsError, errorFromResponse, unreachable } from './errors.js';
import { type EventStreamOptions, streamJobEvents } from './events.js';
import { type FetchFunction, type RetryOptions, retryingFetch, sleep } from './retry.js';
import type { paths } from './schema.js';
import type { CallOptions, CreateJobInput, EventPage, Job, JobEvent, JobPage, JobStatus } from './types.js';
import { type Requester, webhookCalls } from './webhooks.js';

export interface ClientOptions {
  /** Where the server is, e.g. `https://agentjobs.example.com` (without `/v2`). */
  baseUrl: string;
  /** An admin API key (`ajs_…`); it is only ever sent in the Authorization header. */
  apiKey: string;
  /** The project calls work on unless they name another. */
  projectId?: string;
  /** The fetch to use; `globalThis.fetch` by default. */
  fetch?: FetchFunction;
  /** How reads and idempotent writes retry on 429, 503 and lost connections. */
  retry?: RetryOptions;
}

export interface CreateJobOptions extends CallOptions {
  /**
   * Makes the create safe to repeat for 24 hours. One is made for you (a UUID) and reused on the
   * client's own retries; pass your own to make retries across restarts safe too.
   */
  idempotencyKey?: string;
}

export interface ListJobsOptions extends CallOptions {
  status?: JobStatus;
  /** Jobs per page, 1 to 100 (the server's default is 20). */
  limit?: number;
  /** Start after this cursor (a page's `nextCursor`). */
  cursor?: string;
}

export interface WaitOptions extends CallOptions {
  /** Called with the job each time its status, phase or update time changed (and once at the start). */
  onProgress?: (job: Job) => void;
  /** The first wait between polls; it grows by half each poll without change. Default 1 s. */
  pollIntervalMs?: number;
  /** The longest wait between polls. Default 10 s. */
  maxPollIntervalMs?: number;
}

const isDone = (job: Job) => job.status !== 'active';
const changed = (before: Job | undefined, after: Job) =>
  !before ||
  before.status !== after.status ||
  before.phase !== after.phase ||
  before.updatedAt !== after.updatedAt;

/** How every call reaches the server: where, with which key, and the fetch with and without retries. */
interface Transport {
  baseUrl: string;
  authorization: string;
  plain: FetchFunction;
  retrying: FetchFunction;
  api: Client<paths>;
  projectOf: (call: CallOptions) => string;
}

/**
 * A typed client of the agentjobs v2 API. Reads, archive and createJob (with its idempotency key)
 * retry on 429 and 503, honouring Retry-After; other writes do not, since repeating them is not safe.
 * Errors are `AgentJobsError`s carrying the API's status, code, request id and Retry-After.
 */
export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const plain: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request));
  const authorization = `Bearer ${options.apiKey}`;
  const transport: Transport = {
    baseUrl,
    authorization,
    plain,
    retrying: retryingFetch(plain, options.retry),
    api: createFetchClient<paths>({ baseUrl, headers: { authorization }, fetch: plain }),
    projectOf: (call) => {
      const projectId = call.projectId ?? options.projectId;
      if (!projectId) throw new TypeError('agentjobs client: pass projectId to createClient or to the call');
      return projectId;
    },
  };
  const send: Sender = (method, path, init) => sendRequest(transport, method, path, init);
  const request: Requester = async (method, path, init) => (await send(method, path, init)).body;
  const reads = jobReads(transport);

  return {
    /** The project calls use unless they name another. */
    projectId: options.projectId,
    ...reads,
    ...jobWrites(transport),

    /**
     * Polls a job until it is no longer active and returns it as it ended. Waits grow while nothing
     * changes; a 429 or 503 (or a lost connection) is waited out, for as long as the server asks.
     * Stop it with `signal` (e.g. `AbortSignal.timeout(ms)`).
     */
    waitForJob(jobId: string, wait: WaitOptions = {}): Promise<Job> {
      return pollUntilDone(() => reads.getJob(jobId, wait), wait);
    },

    /**
     * A job's events as they happen, over Server-Sent Events: `for await (const event of
     * client.streamEvents(id)) …`. A dropped connection is resumed from the last event seen
     * (Last-Event-ID), so no event is lost or repeated; it ends once the job is no longer active.
     */
    streamEvents(jobId: string, stream: EventStreamOptions = {}): AsyncGenerator<JobEvent, void, undefined> {
      const projectId = transport.projectOf(stream);
      return streamJobEvents({
        url: `${baseUrl}/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(jobId)}/events`,
        authorization,
        fetch: plain,
        baseUrl,
        stillActive: async (signal) => !isDone(await reads.getJob(jobId, { projectId, signal })),
        eventsAfter: (after, signal) => reads.getEvents(jobId, { projectId, after, signal }),
        options: stream,
      });
    },

    ...webhookCalls(request, transport.projectOf),
    ...automationCalls(request, send, transport.projectOf),
  };
}

/** The client `createClient` makes. */
export type AgentJobsClient = ReturnType<typeof createClient>;

/** Turns openapi-fetch's answer into the data, or throws the API's error. */
async function settle<T>(
  baseUrl: string,
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
  signal: AbortSignal | undefined,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw unreachable(baseUrl, error);
  }
  if (!result.response.ok) throw errorFromResponse(result.response, result.error);
  return result.data as T;
}

/** A request by path, answering its status and parsed body (the webhook and automation calls). */
type Sender = (
  method: Parameters<Requester>[0],
  path: string,
  init?: Parameters<Requester>[2],
) => Promise<{ status: number; body: never }>;

async function sendRequest(
  { baseUrl, authorization, plain, retrying }: Transport,
  ...[method, path, init = {}]: Parameters<Sender>
): Promise<{ status: number; body: never }> {
  const url = new URL(`${baseUrl}${path}`);
  for (const [name, value] of Object.entries(init.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const outgoing = new Request(url, {
    method,
    headers: {
      authorization,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  let response: Response;
  try {
    response = await (init.retry ? retrying : plain)(outgoing);
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason;
    throw unreachable(baseUrl, error);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) throw errorFromResponse(response, body);
  return { status: response.status, body: body as never };
}

const jobPath = (transport: Transport, call: CallOptions, jobId: string) => ({
  path: { projectId: transport.projectOf(call), jobId },
});

/** The job reads; all of them retry. */
function jobReads(transport: Transport) {
  const { api, baseUrl, retrying: fetch } = transport;
  return {
    async getJob(jobId: string, call: CallOptions = {}): Promise<Job> {
      const { signal } = call;
      const params = jobPath(transport, call, jobId);
      return settle(baseUrl, api.GET('/v2/agent/{projectId}/job/{jobId}', { params, signal, fetch }), signal);
    },

    /** One page of a job's events after `after` (a seq; 0 for the start). */
    async getEvents(
      jobId: string,
      call: CallOptions & { after?: number; limit?: number } = {},
    ): Promise<EventPage> {
      const { signal, after, limit } = call;
      const params = { ...jobPath(transport, call, jobId), query: { after, limit } };
      // Without Accept: text/event-stream the answer is the JSON page, never the stream.
      const pending = api.GET('/v2/agent/{projectId}/job/{jobId}/events', { params, signal, fetch });
      return settle<EventPage | string>(baseUrl, pending, signal) as Promise<EventPage>;
    },

    /** Pages of jobs, newest first: `for await (const page of client.listJobs()) …`. */
    async *listJobs(list: ListJobsOptions = {}): AsyncGenerator<JobPage, void, undefined> {
      const { signal, status, limit } = list;
      const path = { projectId: transport.projectOf(list) };
      let cursor = list.cursor;
      do {
        const params = { path, query: { status, limit, cursor } };
        const page: JobPage = await settle(
          baseUrl,
          api.GET('/v2/agent/{projectId}/job', { params, signal, fetch }),
          signal,
        );
        yield page;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
  };
}

/** The job writes: a create (with its idempotency key) and an archive retry, a message does not. */
function jobWrites(transport: Transport) {
  const { api, baseUrl, retrying } = transport;
  return {
    /** Creates a job. Safe to retry: the same idempotency key is sent on every attempt. */
    async createJob(input: CreateJobInput, call: CreateJobOptions = {}): Promise<Job> {
      const { signal } = call;
      const idempotencyKey = call.idempotencyKey ?? globalThis.crypto.randomUUID();
      const path = { projectId: transport.projectOf(call) };
      const params = { path, header: { 'idempotency-key': idempotencyKey } };
      const pending = api.POST('/v2/agent/{projectId}/job', { params, body: input, signal, fetch: retrying });
      return settle(baseUrl, pending, signal);
    },

    /** Sends a follow-up prompt; the job becomes active again. Not retried: it is not idempotent. */
    async sendMessage(jobId: string, prompt: string, call: CallOptions = {}): Promise<Job> {
      const { signal } = call;
      const params = jobPath(transport, call, jobId);
      const pending = api.POST('/v2/agent/{projectId}/job/{jobId}/message', {
        params,
        body: { prompt },
        signal,
      });
      return settle(baseUrl, pending, signal);
    },

    /** Archives a job (stopping it first when active). Archiving twice is harmless, so it retries. */
    async archiveJob(jobId: string, call: CallOptions = {}): Promise<Job> {
      const { signal } = call;
      const params = jobPath(transport, call, jobId);
      const pending = api.POST('/v2/agent/{projectId}/job/{jobId}/archive', {
        params,
        signal,
        fetch: retrying,
      });
      return settle(baseUrl, pending, signal);
    },
  };
}

/** Reads the job until it is no longer active (`waitForJob`). */
async function pollUntilDone(read: () => Promise<Job>, wait: WaitOptions): Promise<Job> {
  const first = wait.pollIntervalMs ?? 1000;
  const longest = wait.maxPollIntervalMs ?? 10_000;
  let delay = first;
  let last: Job | undefined;
  for (;;) {
    let job: Job;
    try {
      job = await read();
    } catch (error) {
      if (!(error instanceof AgentJobsError) || !error.retryable) throw error;
      await sleep(error.retryAfter === null ? delay : error.retryAfter * 1000, wait.signal);
      delay = Math.min(longest, delay * 1.5);
      continue;
    }
    if (changed(last, job)) {
      wait.onProgress?.(job);
      delay = first;
    } else {
      delay = Math.min(longest, delay * 1.5);
    }
    last = job;
    if (isDone(job)) return job;
    await sleep(delay, wait.signal);
  }
}
