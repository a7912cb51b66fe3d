import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HostHttpError, retryAfterSeconds, sendWithRetry } from './http.js';

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90);
    // A date already past asks for no wait at all.
    expect(retryAfterSeconds('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('', now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });
});

describe('a host that echoes the token', () => {
  it('is quoted with the token blanked', async () => {
    const token = 'glpat-echoed-by-the-host-0123';
    const server = createServer((request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `token ${request.headers['private-token']} is revoked` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const error = await sendWithRetry(
        new URL(`http://127.0.0.1:${port}/api/v4/user`),
        { method: 'GET', headers: { 'private-token': token }, secrets: [token] },
        { retries: 0 },
      ).catch((caught) => caught);
      expect(error).toBeInstanceOf(HostHttpError);
      expect(error.said).toBe('token [redacted] is revoked');
      expect(error.message).not.toContain(token);
    } finally {
      server.close();
    }
  });
});
