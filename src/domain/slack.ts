/**
 * What the service reads of a Slack event (docs/slack.md): a message that may ask for work. The
 * receiver reads Slack's payload into this shape before it records it; the dispatcher acts on it.
 */

/**
 * `mention`: the app mentioned in a channel (`app_mention`); `direct`: a direct message to the app
 * (`message` in an `im`); `reply`: a message in a thread of a channel the app is in, without a
 * mention (a follow-up when the thread is a job's); `post`: a new top-level message in a channel,
 * without a mention (a run of the automations whose `slack` trigger watches the channel).
 */
export type SlackMessageKind = 'mention' | 'direct' | 'reply' | 'post';

export interface SlackMessage {
  kind: SlackMessageKind;
  teamId: string | null;
  channelId: string;
  userId: string;
  text: string;
  ts: string;
  /** The thread the message is in; null for a message at the top of a channel or a DM. */
  threadTs: string | null;
  /** The app's own user id in the workspace, as Slack's envelope names it; null when it does not. */
  botUserId: string | null;
}

/** The thread a message's answer and its job belong to: its own thread, or the one it starts. */
export const threadOf = (message: Pick<SlackMessage, 'ts' | 'threadTs'>): string =>
  message.threadTs ?? message.ts;

/** The text with mentions of the app taken out and spaces tidied: what the person asks. */
export function withoutMention(text: string, botUserId: string | null): string {
  const mention = botUserId ? new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g') : /^\s*<@[A-Z0-9]+(\|[^>]*)?>/;
  return text.replace(mention, ' ').replace(/\s+/g, ' ').trim();
}

/** Slack's ids: channels (C, G, D), users (U, W), teams (T): upper-case letters and digits. */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,30}$/;
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,30}$/;
