/**
 * Reads what Slack delivers (an Events API envelope, over HTTP or inside a Socket Mode frame) into
 * the one `SlackMessage` the dispatcher acts on, or says why it is none of the service's business.
 * Bots never ask (`bot_id`, `bot_message`), so the app never answers itself; edits, deletions and
 * other subtypes ask nothing either. A new top-level message in a channel is a `post`, which only
 * a `slack` automation trigger acts on.
 */
import { z } from 'zod';
import type { SlackMessage } from '../../domain/slack.js';

const slackEvent = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  channel: z.string().optional(),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string().optional(),
  thread_ts: z.string().optional(),
});

const envelope = z.looseObject({
  type: z.string(),
  challenge: z.string().optional(),
  team_id: z.string().optional(),
  event_id: z.string().optional(),
  event: slackEvent.optional(),
  authorizations: z.array(z.looseObject({ user_id: z.string().optional() })).optional(),
});

/** A URL check, a message to record under its event id, or something to answer and drop. */
export type ReadEnvelope =
  | { kind: 'url_verification'; challenge: string }
  | { kind: 'message'; eventId: string; message: SlackMessage }
  | { kind: 'ignored'; reason: string };

/** Subtypes that are still a person writing: a reply also sent to the channel, a message with a file. */
const PERSON_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

export class SlackPayloadError extends Error {
  override name = 'SlackPayloadError';
}

export function readEnvelope(body: unknown): ReadEnvelope {
  const parsed = envelope.safeParse(body);
  if (!parsed.success) throw new SlackPayloadError('The body is not a Slack event envelope.');
  const { data } = parsed;
  if (data.type === 'url_verification') {
    if (!data.challenge) throw new SlackPayloadError('A url_verification without its challenge.');
    return { kind: 'url_verification', challenge: data.challenge };
  }
  if (data.type !== 'event_callback') return { kind: 'ignored', reason: `envelope ${data.type}` };
  const { event, event_id: eventId } = data;
  if (!event || !eventId) throw new SlackPayloadError('An event_callback without its event or event_id.');
  const botUserId = data.authorizations?.find((each) => each.user_id)?.user_id ?? null;
  const ignored = (reason: string): ReadEnvelope => ({ kind: 'ignored', reason });
  if (event.bot_id || event.subtype === 'bot_message') return ignored('a bot wrote it');
  if (event.subtype && !PERSON_SUBTYPES.has(event.subtype))
    return ignored(`message subtype ${event.subtype}`);
  const { channel, user, ts } = event;
  if (!channel || !user || !ts) return ignored('no channel, user or ts');
  if (user === botUserId) return ignored('the app wrote it');
  const threadTs = event.thread_ts && event.thread_ts !== ts ? event.thread_ts : null;
  const kind = messageKind(event, botUserId, threadTs);
  if (!kind) return ignored(`${event.type} that asks nothing`);
  return {
    kind: 'message',
    eventId,
    message: {
      kind,
      teamId: data.team_id ?? null,
      channelId: channel,
      userId: user,
      text: event.text ?? '',
      ts,
      threadTs,
      botUserId,
    },
  };
}

function messageKind(
  event: z.infer<typeof slackEvent>,
  botUserId: string | null,
  threadTs: string | null,
): SlackMessage['kind'] | null {
  if (event.type === 'app_mention') return 'mention';
  if (event.type !== 'message') return null;
  if (event.channel_type === 'im') return 'direct';
  // A message that mentions the app comes again as an app_mention: that one is acted on.
  if (botUserId && event.text?.includes(`<@${botUserId}`)) return null;
  // A reply also sent to the channel (`thread_broadcast`) is still a reply, not a new message.
  return threadTs ? 'reply' : 'post';
}
