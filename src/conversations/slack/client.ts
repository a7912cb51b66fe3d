/**
 * What the service asks of Slack's Web API, through Slack's own client (`@slack/web-api`) pointed
 * at `AGENTJOBS_SLACK_API_URL`: post in a thread, read a thread, ask whether someone is in a
 * channel, and post an automation's notice in a channel (and find one posted already). The client's own log goes to ours at warnings and above; tokens are never in it.
 */
import { LogLevel, type Logger as SlackLogger, WebClient } from '@slack/web-api';
import type { Logger } from '../../log.js';

export interface SlackApi {
  /** Posts `text` in the thread `threadTs` of `channel`. */
  post(channel: string, threadTs: string, text: string): Promise<void>;
  /** The thread's messages by people, oldest first (bots' left out), at most 200. */
  thread(channel: string, threadTs: string): Promise<{ user: string; text: string; ts: string }[]>;
  /** Whether `user` is a member of `channel`. */
  isMember(channel: string, user: string): Promise<boolean>;
  /** Posts `text` at the top of `channel`, marked (Slack's message metadata) with `noticeId`. */
  postNotice(channel: string, text: string, noticeId: string): Promise<void>;
  /** Whether the app posted the notice `noticeId` in `channel` since `since` (an ISO time). */
  findNotice(channel: string, noticeId: string, since: string): Promise<boolean>;
}

/** The metadata event type the app's notices carry, so a try again can find one already posted. */
export const NOTICE_EVENT_TYPE = 'agentjobs_notice';

/** Slack's clients log through this: warnings and errors reach our log, the rest is dropped. */
export function slackLogger(logger: Logger): SlackLogger {
  const line = (parts: unknown[]) =>
    parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
  return {
    debug: () => {},
    info: () => {},
    warn: (...parts) => logger.warn({ slack: true }, line(parts)),
    error: (...parts) => logger.error({ slack: true }, line(parts)),
    setLevel: () => {},
    getLevel: () => LogLevel.WARN,
    setName: () => {},
  };
}

export function createSlackApi(options: { token: string; apiUrl: string; logger: Logger }): SlackApi {
  const client = new WebClient(options.token, {
    slackApiUrl: options.apiUrl,
    logger: slackLogger(options.logger),
    // A few quick tries; a dispatcher's event that still fails is tried again later.
    retryConfig: { retries: 2, factor: 1.5, minTimeout: 200, maxTimeout: 2000 },
  });
  return {
    async post(channel, threadTs, text) {
      await client.chat.postMessage({ channel, thread_ts: threadTs, text, unfurl_links: false });
    },
    async thread(channel, threadTs) {
      const answer = await client.conversations.replies({ channel, ts: threadTs, limit: 200 });
      return (answer.messages ?? [])
        .filter((message) => message.user && !message.bot_id && message.ts)
        .map((message) => ({ user: message.user ?? '', text: message.text ?? '', ts: message.ts ?? '' }));
    },
    async postNotice(channel, text, noticeId) {
      await client.chat.postMessage({
        channel,
        text,
        unfurl_links: false,
        metadata: { event_type: NOTICE_EVENT_TYPE, event_payload: { notice: noticeId } },
      });
    },
    async findNotice(channel, noticeId, since) {
      const oldest = String(Math.floor(Date.parse(since) / 1000) - 60);
      for await (const page of client.paginate('conversations.history', {
        channel,
        oldest,
        limit: 200,
        include_all_metadata: true,
      })) {
        const messages =
          (
            page as {
              messages?: { metadata?: { event_type?: string; event_payload?: { notice?: string } } }[];
            }
          ).messages ?? [];
        if (
          messages.some(
            (message) =>
              message.metadata?.event_type === NOTICE_EVENT_TYPE &&
              message.metadata.event_payload?.notice === noticeId,
          )
        )
          return true;
      }
      return false;
    },
    async isMember(channel, user) {
      for await (const page of client.paginate('conversations.members', { channel, limit: 1000 })) {
        if (((page as { members?: string[] }).members ?? []).includes(user)) return true;
      }
      return false;
    },
  };
}
