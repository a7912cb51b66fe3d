/**
 * The Slack parts of the automation schemas (docs/automations.md#slack): the `slack` trigger and
 * `notify`. Zod checks the shape of a channel id; that the channel is mapped to the project is
 * checked by `operations/automations.ts` (422 naming the field).
 */
import { z } from 'zod';
import { SLACK_CHANNEL_ID } from '../domain/slack.js';

const channel = z
  .string()
  .regex(SLACK_CHANNEL_ID, 'must be a Slack channel id (C…)')
  .describe("A Slack channel id mapped to the automation's project");

export const slackTrigger = z
  .strictObject({ type: z.literal('slack'), channel })
  .meta({ id: 'SlackTrigger' })
  .describe('Each new top-level message by a person in the channel is a run');

export const slackTriggerOutput = z.object({ type: z.literal('slack'), channel: z.string() });

export const notifyInput = z
  .strictObject({ slack: channel.nullable().optional() })
  .describe(
    "Where to post when a run's pull request opens, is merged, or the run fails; null or absent: nowhere",
  );

export const notifyOutput = z
  .object({ slack: z.string().nullable() })
  .describe("The Slack channel told when a run's pull request opens, is merged, or the run fails");
