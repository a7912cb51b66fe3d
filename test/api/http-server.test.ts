import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * These go over real sockets to a listening server: `inject` never runs Node's HTTP parser, its
 * timeouts or its connection count.
 */

let t: TestApp | undefined;
const sockets: net.Socket[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
  await t?.close();
  t = undefined;
});

async function listen(env: Record<string, string>) {
  t = await startTestApp('sqlite', env);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address() as net.AddressInfo;
  return { app: t, port: address.port };
}

function connect(port: number): net.Socket {
  const socket = net.connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  return socket;
}

/** Everything the server sent until it closed the connection; rejects if it stays open too long. */
function untilClosed(socket: net.Socket, withinMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const guard = setTimeout(
      () => reject(new Error(`still open after ${withinMs} ms: ${received}`)),
      withinMs,
    );
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(received);
    });
  });
}

/** The status, headers and JSON body of a raw HTTP answer. */
function parse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

function expectErrorAnswer(raw: string, status: number, code: string) {
  const answer = parse(raw);
  expect(answer.status, raw).toBe(status);
  expect(answer.headers['x-request-id']).toMatch(/^req_/);
  expect(answer.body).toEqual({ error: expect.any(String), code, requestId: answer.headers['x-request-id'] });
}

/** Opens a live event stream and resolves once its headers arrived. */
function openStream(port: number, app: TestApp, jobId: string) {
  return new Promise<{ request: http.ClientRequest; response: http.IncomingMessage; text: () => string }>(
    (resolve, reject) => {
      const request = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `/v2/agent/${app.project.id}/job/${jobId}/events`,
          headers: { authorization: `Bearer ${app.key}`, accept: 'text/event-stream' },
          agent: false,
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          resolve({ request, response, text: () => text });
        },
      );
      request.on('error', reject);
      request.on('socket', (socket) => sockets.push(socket));
    },
  );
}

const createJob = (app: TestApp) =>
  app.store.jobs.create({
    projectId: app.project.id,
    prompt: 'A job',
    model: 'anthropic:claude-sonnet-4-5',
    baseRef: 'main',
    repository: app.project.repository,
    draft: false,
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => Promise<boolean> | boolean, withinMs = 10_000) {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('request timeouts over real sockets', () => {
  it('cuts off a client that sends its body a byte at a time, with 408 and the error shape', async () => {
    const { app, port } = await listen({ AGENTJOBS_REQUEST_TIMEOUT_SECONDS: '1' });
    const socket = connect(port);
    const closed = untilClosed(socket);
    socket.write(
      `POST /v2/agent/${app.project.id}/job HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${app.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"prompt":"',
    );
    timers.push(setInterval(() => socket.writable && socket.write('x'), 200));
    expectErrorAnswer(await closed, 408, 'request_timeout');
    expect((await app.store.jobs.list(app.project.id, { limit: 10 })).jobs).toHaveLength(0);
    // The request's own end is logged as a client's doing, not as a database in trouble.
    expect(app.logs.some((line) => line.includes('"code":"ERR_HTTP_REQUEST_TIMEOUT"'))).toBe(true);
    await sleep(1000);
    expect(app.logs.filter((line) => line.includes('database unavailable'))).toEqual([]);
  }, 20_000);

  it('cuts off a client that sends its headers a byte at a time', async () => {
    const { port } = await listen({ AGENTJOBS_REQUEST_TIMEOUT_SECONDS: '1' });
    const socket = connect(port);
    const closed = untilClosed(socket);
    const bytes = [
      ...'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    ];
    timers.push(setInterval(() => socket.writable && bytes.length && socket.write(bytes.shift() ?? ''), 200));
    expectErrorAnswer(await closed, 408, 'request_timeout');
  }, 20_000);

  it('keeps an event stream open well past the request timeout, and still delivers', async () => {
    const { app, port } = await listen({ AGENTJOBS_REQUEST_TIMEOUT_SECONDS: '1' });
    const job = await createJob(app);
    const stream = await openStream(port, app, job.id);
    expect(stream.response.statusCode).toBe(200);
    let ended = false;
    stream.response.on('close', () => {
      ended = true;
    });
    await sleep(3500);
    expect(ended).toBe(false);
    await app.store.events.append(job.id, 'message', { role: 'assistant', text: 'still here' });
    await eventually(() => stream.text().includes('still here'));
    expect(ended).toBe(false);
  }, 20_000);
});

describe('the connection cap over real sockets', () => {
  it('closes connections over the cap while those under it work, and takes new ones once one closes', async () => {
    const { app, port } = await listen({ AGENTJOBS_MAX_CONNECTIONS: '3' });
    const job = await createJob(app);
    const streams: Awaited<ReturnType<typeof openStream>>[] = [];
    for (let i = 0; i < 3; i++) streams.push(await openStream(port, app, job.id));
    expect(streams.map((stream) => stream.response.statusCode)).toEqual([200, 200, 200]);

    const refused = connect(port);
    const refusedAnswer = untilClosed(refused);
    refused.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await refusedAnswer).toBe('');
    expect(app.logs.some((line) => line.includes('AGENTJOBS_MAX_CONNECTIONS reached'))).toBe(true);

    // Those under the cap still work.
    await app.store.events.append(job.id, 'message', { role: 'assistant', text: 'to all three' });
    await eventually(() => streams.every((stream) => stream.text().includes('to all three')));

    streams[0]?.request.destroy();
    await eventually(async () => {
      const socket = connect(port);
      const answer = untilClosed(socket);
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      return (await answer).startsWith('HTTP/1.1 200');
    });
  }, 30_000);
});

describe("answers of Node's HTTP parser over real sockets", () => {
  const send = async (port: number, bytes: string) => {
    const socket = connect(port);
    const closed = untilClosed(socket);
    socket.write(bytes);
    return closed;
  };

  it('400 invalid_request with X-Request-Id for a request that is not HTTP', async () => {
    const { port } = await listen({});
    expectErrorAnswer(await send(port, 'NOT HTTP AT ALL\r\n\r\n'), 400, 'invalid_request');
  });

  it('431 headers_too_large with X-Request-Id for headers over the limit', async () => {
    const { port } = await listen({});
    const raw = await send(
      port,
      `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expectErrorAnswer(raw, 431, 'headers_too_large');
  });

  it('414 uri_too_long with X-Request-Id for a path part longer than the router takes', async () => {
    const { app, port } = await listen({});
    const raw = await send(
      port,
      `GET /v2/agent/${'p'.repeat(1025)}/job HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${app.key}\r\nConnection: close\r\n\r\n`,
    );
    expectErrorAnswer(raw, 414, 'uri_too_long');
  });

  it('400 invalid_request with X-Request-Id for a URL that does not decode', async () => {
    const { port } = await listen({});
    const raw = await send(
      port,
      'GET /v2/agent/%E0%A4%A/job HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expectErrorAnswer(raw, 400, 'invalid_request');
  });
});
