/**
 * An HTTP proxy in front of a server for client tests: it forwards every request, except that it
 * can answer chosen requests with an error (429, 503 with Retry-After) first, and cut an event
 * stream's connection after some events, as a flaky network or a load balancer would.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Refusal {
  status: number;
  /** Seconds, sent as Retry-After. */
  retryAfter: number;
  /** Forward the request anyway and drop the server's answer (an answer lost on its way back). */
  forward?: boolean;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** What the proxy answered: the refusal's status, 'cut' for a cut stream, else the server's status. */
  answer: number | 'cut';
}

export interface FaultyProxy {
  url: string;
  requests: SeenRequest[];
  /** The next requests whose method and path match get these answers, one each, in order. */
  refuseNext(method: string, path: RegExp, refusals: Refusal[]): void;
  /** The next event stream whose path matches is cut once it has passed `events` events. */
  cutNextStream(path: RegExp, events: number): void;
  close(): Promise<void>;
}

export async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const refusals: { method: string; path: RegExp; refusal: Refusal }[] = [];
  const cuts: { path: RegExp; events: number }[] = [];
  const requests: SeenRequest[] = [];

  const pass = (
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    seen: SeenRequest,
    cutAfter?: number,
  ) => {
    const proxied = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        if (seen.answer !== 'cut') seen.answer = answer.statusCode ?? 0;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        let passed = 0;
        answer.on('data', (chunk: Buffer) => {
          if (cutAfter === undefined) return outgoing.write(chunk);
          passed += chunk.toString().match(/(?:^|\n)id: /g)?.length ?? 0;
          if (passed < cutAfter) return outgoing.write(chunk);
          // Once what was passed has left, the connection goes, with no end to the response.
          seen.answer = 'cut';
          answer.destroy();
          outgoing.write(chunk, () => outgoing.socket?.destroy());
        });
        answer.on('end', () => outgoing.end());
        answer.on('error', () => outgoing.destroy());
      },
    );
    proxied.on('error', () => outgoing.destroy());
    incoming.pipe(proxied);
  };

  const server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    const seen: SeenRequest = {
      method: incoming.method ?? 'GET',
      path,
      headers: incoming.headers,
      answer: 0,
    };
    requests.push(seen);
    const refused = refusals.findIndex((r) => r.method === seen.method && r.path.test(path));
    if (refused >= 0) {
      const { refusal } = refusals.splice(refused, 1)[0] as (typeof refusals)[number];
      seen.answer = refusal.status;
      const respond = () => {
        outgoing.writeHead(refusal.status, {
          'content-type': 'application/json',
          'retry-after': String(refusal.retryAfter),
        });
        outgoing.end(
          JSON.stringify({ error: 'The proxy refused this one.', code: 'unavailable', requestId: 'proxy' }),
        );
      };
      if (!refusal.forward) {
        incoming.resume();
        incoming.on('end', respond);
        return;
      }
      const proxied = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path,
          headers: incoming.headers,
        },
        (answer) => {
          answer.resume();
          answer.on('end', respond);
        },
      );
      proxied.on('error', () => outgoing.destroy());
      incoming.pipe(proxied);
      return;
    }
    const wantsStream = incoming.headers.accept?.includes('text/event-stream');
    const cut = wantsStream ? cuts.findIndex((c) => c.path.test(path)) : -1;
    if (cut >= 0) {
      const { events } = cuts.splice(cut, 1)[0] as (typeof cuts)[number];
      return pass(incoming, outgoing, seen, events);
    }
    pass(incoming, outgoing, seen);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    refuseNext(method, path, list) {
      for (const refusal of list) refusals.push({ method, path, refusal });
    },
    cutNextStream(path, events) {
      cuts.push({ path, events });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
