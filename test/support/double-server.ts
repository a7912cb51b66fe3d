/**
 * The HTTP server under every code-host test double (GitHub, GitLab, Gitea): on loopback, each
 * request read whole and answered by the double's handler, every answer recorded, faults queued for
 * the next requests, and requests that can be held until the test lets them go. Holding is how the
 * end-to-end tests stop a worker between its push and its pull request: the double holds the
 * create, the test kills the worker, then the double answers (the host opened it, the worker never
 * heard) or drops it (the host never saw it).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a double's handler sees it. */
export interface DoubleRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An answer: `json` is serialized as JSON, `text` sent as it is. */
export interface DoubleReply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** A request a double answered, as tests inspect them. */
export interface RecordedRequest {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  status: number;
  /** When it arrived (ms). */
  at: number;
  /** The request body. */
  body: string;
}

/** A held request: answer it as the double would have, or drop it unseen. */
export interface HeldRequest {
  method: string;
  path: string;
  release(outcome: 'answer' | 'drop'): void;
}

export interface DoubleServer<Fault> {
  url: string;
  requests: RecordedRequest[];
  /** The next `count` requests answer with `fault`, before any other check. */
  fail(fault: Fault, count?: number): void;
  /** Drops the faults not yet used. */
  clearFaults(): void;
  /** Holds the next request that `matches`; resolves when it arrives. */
  hold(matches: (method: string, path: string) => boolean): Promise<HeldRequest>;
  close(): Promise<void>;
}

export type DoubleHandler<Fault> = (
  request: DoubleRequest,
  fault: Fault | undefined,
) => DoubleReply | Promise<DoubleReply>;

interface PendingHold {
  matches: (method: string, path: string) => boolean;
  arrived: (held: HeldRequest) => void;
}

export async function startDoubleServer<Fault>(handle: DoubleHandler<Fault>): Promise<DoubleServer<Fault>> {
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const holds: PendingHold[] = [];

  const answer = async (request: DoubleRequest, response: ServerResponse) => {
    const reply = await handle(request, faults.shift());
    const headers = { ...reply.headers };
    let payload: string | undefined;
    if (reply.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = JSON.stringify(reply.json);
    } else if (reply.text !== undefined) {
      headers['content-type'] ??= 'text/plain; charset=utf-8';
      payload = reply.text;
    }
    response.writeHead(reply.status, headers);
    response.end(payload);
  };

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    const at = Date.now();
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const method = incoming.method ?? 'GET';
      const path = incoming.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const request = { method, url: new URL(path, 'http://double.test'), headers: incoming.headers, body };
      let dropped = false;
      let recorded = false;
      const record = () => {
        if (recorded) return;
        recorded = true;
        requests.push({ method, path, status: dropped ? 0 : response.statusCode, at, body });
      };
      // 'finish' as soon as the answer is sent; 'close' for one whose client died while it was held.
      response.on('finish', record);
      response.on('close', record);
      const run = () =>
        answer(request, response).catch((error: unknown) => {
          if (response.headersSent) return;
          response.writeHead(500);
          response.end(String(error));
        });
      const index = holds.findIndex((pending) => pending.matches(method, path));
      const pending = index >= 0 ? holds.splice(index, 1)[0] : undefined;
      if (!pending) return void run();
      pending.arrived({
        method,
        path,
        release(outcome) {
          if (outcome === 'drop') {
            dropped = true;
            incoming.socket.destroy();
          } else void run();
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    fail(fault, count = 1) {
      for (let index = 0; index < count; index++) faults.push(fault);
    },
    clearFaults() {
      faults.length = 0;
    },
    hold: (matches) => new Promise((arrived) => holds.push({ matches, arrived })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The token of `Authorization: token …` or `Bearer …`, or undefined. */
export function authorizationToken(headers: IncomingHttpHeaders): string | undefined {
  return /^(?:token|bearer)\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
}

/** What the GitHub and Gitea doubles keep of a repository alike. */
interface DoubledRepository {
  owner: string;
  name: string;
  archived: boolean;
  push: boolean;
  pulls: unknown[];
  comments: { number: number; body: string }[];
  /** Each user's permission on the repository, as the host's permission endpoint answers it. */
  collaborators: Record<string, string>;
}

/**
 * A repository of a GitHub or Gitea double from `repositories` (by owner/name, any case), made on
 * first use, open and pushable, with `settings` applied.
 */
export function doubledRepository<Repository extends DoubledRepository>(
  repositories: Map<string, Repository>,
  owner: string,
  name: string,
  settings: { archived?: boolean; push?: boolean },
  /** What a host's repositories have beyond the shared fields (Gitea's `admin` flag), when made. */
  extra: Partial<Repository> = {},
): Repository {
  const key = `${owner}/${name}`.toLowerCase();
  const repository =
    repositories.get(key) ??
    ({
      owner,
      name,
      archived: false,
      push: true,
      pulls: [],
      comments: [],
      collaborators: {},
      ...extra,
    } as DoubledRepository as Repository);
  if (settings.archived !== undefined) repository.archived = settings.archived;
  if (settings.push !== undefined) repository.push = settings.push;
  repositories.set(key, repository);
  return repository;
}
