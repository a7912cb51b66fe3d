import { expect, it } from 'vitest';
import { slackSignature, verifySlackSignature } from './signature.js';

// Slack's own worked example (its "Verifying requests from Slack" page): this secret, timestamp
// and body give this signature.
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const TIMESTAMP = '1531420618';
const BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

it("matches Slack's worked example, within the replay window only", () => {
  expect(slackSignature(SECRET, TIMESTAMP, BODY)).toBe(SIGNATURE);
  const headers = { 'x-slack-signature': SIGNATURE, 'x-slack-request-timestamp': TIMESTAMP };
  const at = Number(TIMESTAMP) * 1000;
  expect(verifySlackSignature(SECRET, headers, Buffer.from(BODY), at + 60_000)).toBe('valid');
  expect(verifySlackSignature(SECRET, headers, Buffer.from(BODY), at + 6 * 60_000)).toBe('stale');
  expect(verifySlackSignature(SECRET, headers, Buffer.from(`${BODY}x`), at)).toBe('wrong');
  expect(verifySlackSignature('another secret', headers, Buffer.from(BODY), at)).toBe('wrong');
  expect(verifySlackSignature(SECRET, { 'x-slack-signature': SIGNATURE }, Buffer.from(BODY), at)).toBe(
    'missing',
  );
  expect(
    verifySlackSignature(SECRET, { ...headers, 'x-slack-signature': 'v0=short' }, Buffer.from(BODY), at),
  ).toBe('wrong');
});
