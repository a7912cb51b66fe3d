/**
 * A double of Slack for the tests (docs/slack.md): its Web API on loopback, which checks every call
 * as Slack would — the method is one it has, the token is the right kind and the right one, the
 * channel exists, a `thread_ts` is a message of that channel — and answers as Slack does
 * (`{ ok: false, error }` with status 200 for a refusal). Calls it refuses are kept in
 * `violations`, which a test expects empty. It holds channels and their messages, signs and sends
 * Events API envelopes to the service over HTTP, and serves Socket Mode: `apps.connections.open`
 * hands out a WebSocket on the same port, where envelopes are pushed and their acks awaited.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { slackSignature } from '../../src/conversations/slack/signature.js';

export interface SlackDoubleMessage {
  user: string;
  text: string;
  ts: string;
  thread_ts?: string;
  bot_id?: string;
  /** Slack's message metadata, as the app posted it. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface SlackCall {
  method: string;
  token: string | null;
  params: Record<string, string>;
}

export interface SlackDouble {
  url: string;
  /** Slack's Web API base, as `AGENTJOBS_SLACK_API_URL` names it. */
  apiUrl: string;
  botToken: string;
  appToken: string;
  signingSecret: string;
  botUserId: string;
  teamId: string;
  calls: SlackCall[];
  /** Calls Slack would have refused, in words. */
  violations: string[];
  addChannel(id: string, members: string[]): void;
  /** The messages the app posted in a thread. */
  posted(channel: string, threadTs: string): string[];
  /** The messages the app posted at the top of a channel (its automation notices). */
  notices(channel: string): string[];
  /** A person's message in a channel (in a thread with `threadTs`), and the envelope Slack would send. */
  say(input: {
    channel: string;
    user: string;
    text: string;
    threadTs?: string;
    type?: 'app_mention' | 'message';
    channelType?: 'channel' | 'im';
    botId?: string;
  }): { ts: string; envelope: Record<string, unknown> };
  /** Posts an envelope to the events endpoint, signed (or as `options` spoils it). */
  send(
    endpoint: string,
    envelope: unknown,
    options?: { secret?: string; timestamp?: number; unsigned?: boolean; retryNum?: number },
  ): Promise<{ status: number; body: unknown }>;
  /** Socket Mode: pushes an envelope to the connected client; resolves with its ack. */
  push(envelope: Record<string, unknown>): Promise<{ envelope_id: string }>;
  /** Resolves when a Socket Mode client is connected. */
  connected(): Promise<void>;
  close(): Promise<void>;
}

const METHODS = new Set([
  'chat.postMessage',
  'conversations.replies',
  'conversations.members',
  'conversations.history',
  'apps.connections.open',
  'auth.test',
]);

function params(headers: IncomingHttpHeaders, body: string): Record<string, string> {
  if (String(headers['content-type']).startsWith('application/json'))
    return Object.fromEntries(
      Object.entries(JSON.parse(body || '{}') as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
  return Object.fromEntries(new URLSearchParams(body));
}

export async function startSlackDouble(): Promise<SlackDouble> {
  const botToken = `xoxb-${randomBytes(12).toString('hex')}`;
  const appToken = `xapp-${randomBytes(12).toString('hex')}`;
  const signingSecret = randomBytes(16).toString('hex');
  const botUserId = 'UAPPBOT01';
  const teamId = 'TDOUBLE01';
  const channels = new Map<string, { members: string[]; messages: SlackDoubleMessage[] }>();
  const calls: SlackCall[] = [];
  const violations: string[] = [];
  // Timestamps near now, as Slack's are: the app reads a channel's history since a time.
  let clock = Math.floor(Date.now() / 1000);
  const nextTs = () => `${++clock}.000100`;
  let socket: WebSocket | null = null;
  let whenConnected: (() => void) | null = null;
  let connectedPromise = new Promise<void>((resolve) => {
    whenConnected = resolve;
  });
  const acks = new Map<string, (ack: { envelope_id: string }) => void>();

  const refuse = (method: string, error: string) => {
    violations.push(`${method}: ${error}`);
    return { ok: false, error };
  };

  const call = (method: string, token: string | null, p: Record<string, string>): Record<string, unknown> => {
    calls.push({ method, token, params: p });
    if (!METHODS.has(method)) return refuse(method, 'unknown_method');
    if (method === 'apps.connections.open') {
      if (token !== appToken)
        return refuse(method, token?.startsWith('xapp-') ? 'invalid_auth' : 'not_allowed_token_type');
      return { ok: true, url: `${url.replace('http', 'ws')}/link/?ticket=${randomBytes(6).toString('hex')}` };
    }
    if (token !== botToken) return refuse(method, token ? 'invalid_auth' : 'not_authed');
    if (method === 'auth.test') return { ok: true, user_id: botUserId, team_id: teamId };
    const channel = channels.get(p.channel ?? '');
    if (!channel) return refuse(method, 'channel_not_found');
    if (method === 'conversations.members')
      return { ok: true, members: channel.members, response_metadata: { next_cursor: '' } };
    if (method === 'conversations.history') {
      const oldest = Number(p.oldest ?? 0);
      const withMetadata = p.include_all_metadata === 'true';
      const messages = channel.messages
        .filter((each) => !each.thread_ts && Number(each.ts) >= oldest)
        .map(({ metadata, ...each }) => (withMetadata && metadata ? { ...each, metadata } : each))
        .reverse();
      return { ok: true, messages, has_more: false, response_metadata: { next_cursor: '' } };
    }
    const threadTs = method === 'conversations.replies' ? p.ts : p.thread_ts;
    const parent = threadTs ? channel.messages.find((each) => each.ts === threadTs) : undefined;
    if (method === 'conversations.replies') {
      if (!parent) return refuse(method, 'thread_not_found');
      const thread = channel.messages.filter((each) => each.ts === threadTs || each.thread_ts === threadTs);
      return { ok: true, messages: thread, has_more: false };
    }
    if (!p.text) return refuse(method, 'no_text');
    if (threadTs && !parent) return refuse(method, 'thread_ts does not name a message of the channel');
    // Only an automation's notice goes at the top of a channel, and it carries its mark.
    const metadata = p.metadata ? (JSON.parse(p.metadata) as SlackDoubleMessage['metadata']) : undefined;
    if (!threadTs && metadata?.event_type !== 'agentjobs_notice')
      return refuse(method, 'the app posts only in threads, but for its marked notices');
    const ts = nextTs();
    channel.messages.push({
      user: botUserId,
      bot_id: 'BAPP01',
      text: p.text,
      ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(metadata ? { metadata } : {}),
    });
    return { ok: true, channel: p.channel, ts };
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://double').pathname;
      const method = path.replace(/^\/api\//, '');
      const auth = request.headers.authorization;
      const token = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
      const answer = call(method, token, params(request.headers, Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  const sockets = new WebSocketServer({ server, path: '/link/' });
  sockets.on('connection', (connection) => {
    socket = connection;
    connection.on('message', (data) => {
      const ack = JSON.parse(String(data)) as { envelope_id: string };
      acks.get(ack.envelope_id)?.(ack);
    });
    connection.on('close', () => {
      if (socket === connection) socket = null;
      connectedPromise = new Promise<void>((resolve) => {
        whenConnected = resolve;
      });
    });
    connection.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }));
    whenConnected?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    apiUrl: `${url}/api/`,
    botToken,
    appToken,
    signingSecret,
    botUserId,
    teamId,
    calls,
    violations,
    addChannel(id, members) {
      channels.set(id, { members, messages: [] });
    },
    posted(channel, threadTs) {
      return (channels.get(channel)?.messages ?? [])
        .filter((each) => each.thread_ts === threadTs && each.user === botUserId)
        .map((each) => each.text);
    },
    notices(channel) {
      return (channels.get(channel)?.messages ?? [])
        .filter((each) => !each.thread_ts && each.user === botUserId)
        .map((each) => each.text);
    },
    say(input) {
      const channel = channels.get(input.channel);
      if (!channel) throw new Error(`no channel ${input.channel} in the double`);
      const ts = nextTs();
      const message: SlackDoubleMessage = { user: input.user, text: input.text, ts };
      if (input.threadTs) message.thread_ts = input.threadTs;
      if (input.botId) message.bot_id = input.botId;
      channel.messages.push(message);
      const type = input.type ?? 'app_mention';
      const envelope = {
        token: 'deprecated-verification-token',
        team_id: teamId,
        api_app_id: 'A1',
        type: 'event_callback',
        event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
        event_time: clock,
        authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
        event: {
          type,
          ...message,
          channel: input.channel,
          ...(type === 'message' ? { channel_type: input.channelType ?? 'channel' } : {}),
          event_ts: ts,
        },
      };
      return { ts, envelope };
    },
    async send(endpoint, envelope, options = {}) {
      const body = JSON.stringify(envelope);
      const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (!options.unsigned) {
        headers['x-slack-request-timestamp'] = timestamp;
        headers['x-slack-signature'] = slackSignature(options.secret ?? signingSecret, timestamp, body);
      }
      if (options.retryNum !== undefined) {
        headers['x-slack-retry-num'] = String(options.retryNum);
        headers['x-slack-retry-reason'] = 'http_timeout';
      }
      const response = await fetch(endpoint, { method: 'POST', headers, body });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    push(envelope) {
      if (!socket) throw new Error('no Socket Mode client is connected');
      const envelopeId = randomBytes(8).toString('hex');
      const acked = new Promise<{ envelope_id: string }>((resolve) => acks.set(envelopeId, resolve));
      socket.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type: 'events_api',
          accepts_response_payload: false,
          retry_attempt: 0,
          retry_reason: '',
          payload: envelope,
        }),
      );
      return acked;
    },
    connected: () => connectedPromise,
    async close() {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
