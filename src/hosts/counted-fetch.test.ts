import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countedFetch, type HostRequestOutcome } from './counted-fetch.js';

describe('countedFetch', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // Answers with the status the path names; /quota is GitHub's "no quota left" 403.
    server = createServer((request, response) => {
      if (request.url === '/quota') response.setHeader('x-ratelimit-remaining', '0');
      response.statusCode = request.url === '/quota' ? 403 : Number(request.url?.slice(1));
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reports each request under the host with its outcome, and passes the response on', async () => {
    const seen: [string, HostRequestOutcome][] = [];
    const send = countedFetch('gitea', (host, outcome) => seen.push([host, outcome]));
    for (const path of ['/200', '/302', '/404', '/429', '/quota', '/503']) {
      const response = await send(`${url}${path}`, { redirect: 'manual' });
      await response.arrayBuffer();
    }
    await expect(send('http://127.0.0.1:1/')).rejects.toThrow();
    expect(seen.map(([, outcome]) => outcome)).toEqual([
      'ok',
      'ok',
      'client_error',
      'rate_limited',
      'rate_limited',
      'server_error',
      'network_error',
    ]);
    expect(new Set(seen.map(([host]) => host))).toEqual(new Set(['gitea']));
  });

  it('does not count a request the caller aborted', async () => {
    const seen: HostRequestOutcome[] = [];
    const send = countedFetch('github', (_host, outcome) => seen.push(outcome));
    const controller = new AbortController();
    controller.abort();
    await expect(send(`${url}/200`, { signal: controller.signal })).rejects.toThrow();
    expect(seen).toEqual([]);
  });
});
