/**
 * Receiving what Slack sends, over either way in: the events endpoint and Socket Mode read the
 * envelope the same way and record a message once per event id before they answer, so a crash
 * after the answer loses nothing and a retry (`X-Slack-Retry-Num`, a Socket Mode redelivery)
 * starts nothing twice. The dispatcher takes it from there. A channel's new top-level message is
 * recorded only when an automation watches the channel.
 */
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import { slackAutomationsFor } from './automation-trigger.js';
import { type ReadEnvelope, readEnvelope } from './events.js';

export type Receipt =
  | { outcome: 'url_verification'; challenge: string }
  | { outcome: 'recorded' | 'duplicate'; eventId: string }
  | { outcome: 'ignored'; reason: string };

/** Reads and records an envelope. @throws SlackPayloadError when the body is no envelope. */
export async function receiveEnvelope(
  store: Pick<Store, 'slack' | 'automations'>,
  logger: Logger,
  body: unknown,
  via: 'http' | 'socket',
): Promise<Receipt> {
  const read: ReadEnvelope = readEnvelope(body);
  if (read.kind === 'url_verification') return { outcome: 'url_verification', challenge: read.challenge };
  if (read.kind === 'ignored') {
    logger.debug({ via, reason: read.reason }, 'Slack event ignored');
    return { outcome: 'ignored', reason: read.reason };
  }
  // Every message of every channel the app is in comes as a post: only one that an automation
  // watches is kept, so the rest of a channel's talk is never stored.
  if (
    read.message.kind === 'post' &&
    (await slackAutomationsFor(store, read.message.channelId)).length === 0
  ) {
    logger.debug({ via, channel: read.message.channelId }, 'Slack post in a channel no automation watches');
    return { outcome: 'ignored', reason: 'a post in a channel no automation watches' };
  }
  const recorded = await store.slack.recordEvent(read.eventId, read.message);
  logger.info(
    { via, eventId: read.eventId, kind: read.message.kind, duplicate: !recorded },
    recorded ? 'Slack event recorded' : 'Slack event repeated: nothing new',
  );
  return { outcome: recorded ? 'recorded' : 'duplicate', eventId: read.eventId };
}
