import { expect, it } from 'vitest';
import { readEnvelope, SlackPayloadError } from './events.js';

const callback = (event: Record<string, unknown>) => ({
  type: 'event_callback',
  team_id: 'T1',
  event_id: 'Ev1',
  authorizations: [{ user_id: 'UAPP' }],
  event: { channel: 'C1', user: 'U1', text: 'hi', ts: '2.0', ...event },
});

it('reads mentions, direct messages and thread replies, and nothing else', () => {
  expect(readEnvelope(callback({ type: 'app_mention', text: '<@UAPP> fix it' }))).toMatchObject({
    kind: 'message',
    eventId: 'Ev1',
    message: { kind: 'mention', channelId: 'C1', userId: 'U1', threadTs: null, botUserId: 'UAPP' },
  });
  expect(readEnvelope(callback({ type: 'message', channel_type: 'im' }))).toMatchObject({
    message: { kind: 'direct' },
  });
  expect(
    readEnvelope(callback({ type: 'message', channel_type: 'channel', thread_ts: '1.0' })),
  ).toMatchObject({
    message: { kind: 'reply', threadTs: '1.0' },
  });
  // A top-level message without a mention: a post, for the automations that watch the channel.
  expect(readEnvelope(callback({ type: 'message', channel_type: 'channel' }))).toMatchObject({
    message: { kind: 'post', threadTs: null, text: 'hi', userId: 'U1' },
  });
  // A reply also sent to the channel is a reply.
  expect(
    readEnvelope(
      callback({ type: 'message', subtype: 'thread_broadcast', channel_type: 'channel', thread_ts: '1.0' }),
    ),
  ).toMatchObject({ message: { kind: 'reply' } });
  const ignored = (event: Record<string, unknown>) => readEnvelope(callback(event)).kind;
  // A post that mentions the app (its app_mention is read), a reply that mentions the app.
  expect(ignored({ type: 'message', channel_type: 'channel', text: '<@UAPP> fix it' })).toBe('ignored');
  expect(ignored({ type: 'message', channel_type: 'channel', thread_ts: '1.0', text: '<@UAPP> more' })).toBe(
    'ignored',
  );
  // Bots, the app itself, edits and deletions.
  expect(ignored({ type: 'app_mention', bot_id: 'B1' })).toBe('ignored');
  expect(ignored({ type: 'message', subtype: 'bot_message', channel_type: 'im' })).toBe('ignored');
  expect(ignored({ type: 'message', channel_type: 'im', user: 'UAPP' })).toBe('ignored');
  expect(ignored({ type: 'message', subtype: 'message_changed', channel_type: 'im' })).toBe('ignored');
  expect(ignored({ type: 'reaction_added' })).toBe('ignored');
  expect(readEnvelope({ type: 'app_rate_limited' })).toEqual({
    kind: 'ignored',
    reason: 'envelope app_rate_limited',
  });
});

it('answers the URL check and refuses what is no envelope', () => {
  expect(readEnvelope({ type: 'url_verification', challenge: 'abc' })).toEqual({
    kind: 'url_verification',
    challenge: 'abc',
  });
  for (const body of [
    null,
    'text',
    { type: 'url_verification' },
    { type: 'event_callback', event_id: 'Ev1' },
  ])
    expect(() => readEnvelope(body)).toThrow(SlackPayloadError);
});
