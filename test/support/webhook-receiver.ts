import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The verified payload, when the receiver has secrets and one of them verifies. */
  verified: { type: string; timestamp: string; data: { job: Record<string, unknown> } } | null;
}

export type Answer = (request: Received, response: http.ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (default: 204). */
  answer: Answer;
  /** Secrets to verify with (`standardwebhooks`' `Webhook.verify`), as a receiver would. */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 written as a user would write one: it verifies each request with
 * the `standardwebhooks` package and records what it got. `port` picks the port (to start one
 * later on a port that refused connections before).
 */
export async function startReceiver(options: { port?: number; secrets?: string[] } = {}): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: (_request, response) => {
      response.writeHead(204).end();
    },
    secrets: options.secrets ?? [],
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: Received['verified'] = null;
      for (const secret of receiver.secrets) {
        try {
          verified = new Webhook(secret).verify(
            body,
            request.headers as Record<string, string>,
          ) as Received['verified'];
          break;
        } catch {
          // Not this secret.
        }
      }
      const received = { headers: request.headers, body, verified };
      receiver.received.push(received);
      receiver.answer(received, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
