/**
 * A git server for tests: the bare repositories under a folder, served over smart HTTP on loopback
 * by git's own `git http-backend` (a CGI program; see git-http-backend(1)), behind HTTP basic
 * authentication that accepts only the test token as the password, with any user name (as GitHub and
 * Gitea do) or only the one a host wants (GitLab: `oauth2`). Real git, the real protocol, the real
 * 401 → askpass → retry dance.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`; a repository `<root>/org/repo.git` is at `${url}/org/repo.git`. */
  url: string;
  /** Every request: what git asked for and which user name it authenticated as (null: none). */
  requests: { method: string; path: string; user: string | null; status: number }[];
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** The folder whose bare repositories are served. */
  root: string;
  /** The only password accepted. */
  token: string;
  /** When given, the only user name accepted. */
  username?: string;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://git.test');
    const user = authenticatedUser(request.headers.authorization, options.token, options.username);
    const record = { method: request.method ?? 'GET', path: url.pathname, user, status: 0 };
    requests.push(record);
    response.on('finish', () => {
      record.status = response.statusCode;
    });
    if (user === null) {
      // git sends no credentials until it is asked for them, then asks GIT_ASKPASS.
      response.writeHead(401, { 'www-authenticate': 'Basic realm="agentjobs test git"' });
      response.end('Unauthorized\n');
      return;
    }
    runBackend(options.root, request, response, url, user);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The user name when the Basic credentials carry the token as password (and the wanted name), else null. */
function authenticatedUser(header: string | undefined, token: string, username?: string): string | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.slice(colon + 1) !== token) return null;
  const user = decoded.slice(0, colon);
  if (username !== undefined && user !== username) return null;
  return user || 'anonymous';
}

/** Runs `git http-backend` for one request: CGI variables in, `Status:` + headers + body out. */
function runBackend(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  user: string,
): void {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : '';
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      // receive-pack (push) is enabled by http-backend only for an authenticated REMOTE_USER.
      REMOTE_USER: user,
      REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: 'HTTP/1.1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: header('content-type'),
      // Without CONTENT_LENGTH (a chunked request) http-backend reads the body until EOF.
      ...(header('content-length') ? { CONTENT_LENGTH: header('content-length') } : {}),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      // Protocol v2 is negotiated through this header.
      GIT_PROTOCOL: header('git-protocol'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  request.pipe(child.stdin);
  child.stdin.on('error', () => {});
  child.stderr.resume();

  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
    if (end < 0) return;
    const separator = head.indexOf('\r\n\r\n') === end ? 4 : 2;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10) || 200;
      else headers[name] = value;
    }
    response.writeHead(status, headers);
    headersSent = true;
    response.write(head.subarray(end + separator));
  });
  child.on('close', (code) => {
    if (!headersSent) {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`git http-backend exited with ${code}\n`);
      return;
    }
    response.end();
  });
}
