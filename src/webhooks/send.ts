/**
 * One webhook attempt over HTTP: a POST of the signed body, judged by its status alone. Built on
 * `node:http` rather than `fetch` for the three things a sender to strangers' URLs needs: the
 * address check at connection time (`lookup`), no redirects followed (a 3xx is a failure), and a
 * response body read no further than the excerpt the attempt log keeps, whatever the receiver sends.
 * One deadline covers it all: DNS, connecting, the request and the response's first bytes.
 */
import http from 'node:http';
import https from 'node:https';
import { MAX_RESPONSE_EXCERPT_CHARS, webhookUrlProblem, webhookUrlRefusal } from '../domain/webhook.js';
import type { AttemptResult } from '../store/webhooks/index.js';
import { type Resolve, safeLookup, WebhookUrlError } from './address.js';

/** How much of a response body is read, at most; the rest is never received. */
const MAX_READ_BYTES = 4096;

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Tests resolve names their own way; by default the system resolver. */
  resolve?: Resolve;
}

/** Sends one attempt; never throws: every way it can go wrong is an `AttemptResult` with an error. */
export async function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const problem = webhookUrlProblem(options.url, options.allowPrivate);
  if (problem) return failure(webhookUrlRefusal(problem), null, elapsed());
  const url = new URL(options.url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const request = client.request(url, {
      method: 'POST',
      // A connection of its own: a pooled socket would skip the address check of `lookup`.
      agent: false,
      lookup: safeLookup(options.allowPrivate, options.resolve),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(options.body),
        'user-agent': 'agentjobs-webhooks',
        ...options.headers,
      },
    });
    const deadline = setTimeout(
      () => finish(failure(`No response within ${options.timeoutMs} ms.`, null, elapsed())),
      options.timeoutMs,
    );
    request.on('error', (error) => {
      const message = error instanceof WebhookUrlError ? error.message : describe(error);
      finish(failure(message, null, elapsed()));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const excerpt = excerptOf(Buffer.concat(chunks));
        const ok = status >= 200 && status < 300;
        const error = ok
          ? null
          : status >= 300 && status < 400
            ? `HTTP ${status}: redirects are not followed.`
            : `HTTP ${status}.`;
        finish({ ok, responseStatus: status, durationMs: elapsed(), error, responseExcerpt: excerpt });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_READ_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(options.body);
  });
}

function failure(error: string, responseStatus: number | null, durationMs: number): AttemptResult {
  return { ok: false, responseStatus, durationMs, error, responseExcerpt: null };
}

/** A network error in words, without the stack. */
function describe(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'The connection was refused.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The host name does not resolve.';
    case 'ECONNRESET':
      return 'The connection was reset.';
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}

/** The start of a body as text, capped, or null when there was none. */
function excerptOf(body: Buffer): string | null {
  if (body.length === 0) return null;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, MAX_READ_BYTES));
  return text.length > MAX_RESPONSE_EXCERPT_CHARS ? text.slice(0, MAX_RESPONSE_EXCERPT_CHARS) : text;
}
