import { z } from 'zod';
import { documented } from './setting-doc.js';
import { httpUrl, optionalString } from './values.js';

/** The Slack app's settings (docs/slack.md); part of the server's environment. */
export const slackSettings = {
  AGENTJOBS_SLACK_SIGNING_SECRET: documented(optionalString, {
    group: 'slack',
    description:
      "The Slack app's signing secret: `POST /v2/slack/events` accepts only requests it signed (v0 signature, at most 5 minutes old). See [Slack](slack.md).",
    shownDefault: 'the one `agentjobs slack connect` stored, else none (the events endpoint answers 404)',
  }),
  AGENTJOBS_SLACK_BOT_TOKEN: documented(
    optionalString.pipe(
      z
        .string()
        .regex(/^xoxb-\S+$/, 'must be a bot token (xoxb-…)')
        .optional(),
    ),
    {
      group: 'slack',
      description: "The Slack app's bot token (`xoxb-…`), which the service answers in threads with.",
      shownDefault: 'the one `agentjobs slack connect` stored, else none (Slack is off)',
    },
  ),
  AGENTJOBS_SLACK_APP_TOKEN: documented(
    optionalString.pipe(
      z
        .string()
        .regex(/^xapp-\S+$/, 'must be an app-level token (xapp-…)')
        .optional(),
    ),
    {
      group: 'slack',
      description:
        "An app-level token (`xapp-…`, scope `connections:write`): the service receives Slack's events over Socket Mode, an outbound WebSocket, for an install with no public URL.",
      shownDefault: 'the one `agentjobs slack connect` stored, else none (events come over HTTP)',
    },
  ),
  AGENTJOBS_SLACK_API_URL: documented(httpUrl.default('https://slack.com/api/'), {
    group: 'slack',
    description:
      "Where Slack's Web API calls go (a proxy, or a test's double); Socket Mode asks it for its WebSocket's address too.",
  }),
};
