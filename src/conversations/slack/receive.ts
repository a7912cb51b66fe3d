/**
 * Receiving what Slack sends, over either way in: the events endpoint and Socket Mode read the
 * envelope the same way and record a message once per event id before they answer, so a crash
 * after the answer loses nothing and a retry (`X-Slack-Retry-Num`, a Socket Mode redelivery)
 * starts nothing twice. The dispatcher takes it from there.
 */
import type { Logger } from '../../log.js';
import type { Store } from '../../store/store.js';
import { type ReadEnvelope, readEnvelope } from './events.js';

export type Receipt =
  | { outcome: 'url_verification'; challenge: string }
  | { outcome: 'recorded' | 'duplicate'; eventId: string }
  | { outcome: 'ignored'; reason: string };

/** Reads and records an envelope. @throws SlackPayloadError when the body is no envelope. */
export async function receiveEnvelope(
  store: Pick<Store, 'slack'>,
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
  const recorded = await store.slack.recordEvent(read.eventId, read.message);
  logger.info(
    { via, eventId: read.eventId, kind: read.message.kind, duplicate: !recorded },
    recorded ? 'Slack event recorded' : 'Slack event repeated: nothing new',
  );
  return { outcome: recorded ? 'recorded' : 'duplicate', eventId: read.eventId };
}
