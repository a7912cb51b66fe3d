// The timing proxy bench/job.mjs puts in front of the scripted model: when each model call began and ended.
import http from 'node:http';

const now = () => performance.timeOrigin + performance.now();

/**
 * A pass-through proxy in front of the scripted model that records, for each chat-completions
 * request, when it arrived and when the last byte of its answer was handed back: the model's time,
 * as a real model would take it.
 *
 * `holdFollowUps(n)`: the script is consumed in the order requests arrive, so for jobs run at once
 * a request that carries a tool result (a job's second call) waits until `n` first calls were
 * answered. Every job then gets a `write_file` turn first and a final answer second.
 */
export async function startTimingProxy(upstream) {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const calls = [];
  let gate = null;
  const server = http.createServer((request, response) => {
    const start = now();
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const chat = request.url.endsWith('/chat/completions');
      let first = false;
      if (gate && chat) {
        const messages = JSON.parse(body.toString('utf8')).messages ?? [];
        first = !messages.some((message) => message.role === 'tool');
        if (!first) await gate.opened;
      }
      const forward = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
          agent,
        },
        (answer) => {
          if (first && gate && --gate.waiting === 0) gate.open();
          response.writeHead(answer.statusCode, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', (error) => response.destroy(error));
      forward.end(body);
    });
    response.on('finish', () => {
      if (request.url.endsWith('/chat/completions')) calls.push({ start, end: now() });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    calls,
    holdFollowUps(count) {
      let open;
      const opened = new Promise((resolve) => {
        open = resolve;
      });
      gate = { waiting: count, opened, open };
    },
    close: () => server.close(),
  };
}
