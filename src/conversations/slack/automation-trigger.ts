/**
 * The `slack` automation trigger (docs/automations.md#slack): a new top-level message by a person
 * in a channel is a run of each automation of the channel's project whose trigger watches that
 * channel, with the message as data for the template (`{{message.text}}`, `{{message.user}}`,
 * `{{message.channel}}`, `{{message.link}}`). The channel asks one project (its mapping), so an
 * automation watches only its own project's channels. Who may start a run is who may ask the
 * project: the Slack users it lists when it lists any, else anyone in its channel. Each run is
 * keyed by the message (`slackRunKey`): a redelivery, or a try again after a failure, makes no
 * second run and no second job.
 */
import type { Automation, AutomationRun } from '../../domain/automation.js';
import { slackMessageLink, slackRunKey } from '../../domain/automation-slack.js';
import type { SlackMessage } from '../../domain/slack.js';
import type { AutomationRunDeps } from '../../operations/automation-run.js';
import { runAutomation } from '../../operations/automation-run.js';
import type { Store } from '../../store/store.js';

/** The automations whose `slack` trigger watches `channelId`: of the project the channel is mapped to. */
export async function slackAutomationsFor(
  store: Pick<Store, 'slack' | 'automations'>,
  channelId: string,
): Promise<Automation[]> {
  const projectId = await store.slack.channelProject(channelId);
  if (!projectId) return [];
  return (await store.automations.list(projectId)).filter(
    ({ trigger }) => trigger.type === 'slack' && trigger.channel === channelId,
  );
}

/**
 * Runs the automations a channel's post concerns, one run each; returns what came of it, in words,
 * for the event's row. Throws what is no reason to skip (the dispatcher tries the event again; the
 * runs already made are found by their key and not made again).
 */
export async function runSlackAutomations(deps: AutomationRunDeps, message: SlackMessage): Promise<string> {
  const automations = await slackAutomationsFor(deps.store, message.channelId);
  if (automations.length === 0) return 'a post in a channel no automation watches';
  const link = slackMessageLink(message.channelId, message.ts);
  const trigger = { type: 'slack' as const, source: link };
  const key = slackRunKey(message.channelId, message.ts);
  const { users } = await deps.store.slack.mapping(automations[0]?.projectId ?? '');
  const runs: AutomationRun[] = [];
  for (const automation of automations) {
    if (users.length > 0 && !users.includes(message.userId)) {
      runs.push(
        await deps.store.automations.recordRun({
          automation,
          trigger,
          hostEventId: key,
          outcome: 'skipped',
          reason: 'untrusted_author',
          jobId: null,
        }),
      );
      continue;
    }
    const { run } = await runAutomation(deps, {
      automation,
      trigger,
      hostEventId: key,
      context: {
        message: { text: message.text, user: message.userId, channel: message.channelId, link },
      },
    });
    runs.push(run);
  }
  return runs
    .map(
      (run) => `${run.outcome}${run.reason ? ` (${run.reason})` : ''}${run.jobId ? ` job ${run.jobId}` : ''}`,
    )
    .join('; ');
}
