/**
 * The rule an automation's Slack channels keep (docs/automations.md#slack): a `slack` trigger's
 * channel and the `notify` channel are each mapped to the automation's project (`agentjobs
 * project slack add`). A channel asks one project, so one project's automations can neither read
 * another's channel into their jobs nor post in it.
 */
import type { Automation } from '../domain/automation.js';
import type { AppError } from '../domain/errors.js';
import type { Store } from '../store/store.js';

/** @throws the `invalid` error naming `trigger.channel` or `notify.slack` */
export async function checkSlackChannels(
  store: Pick<Store, 'slack'>,
  projectId: string,
  automation: Pick<Automation, 'trigger' | 'notify'>,
  invalid: (path: string, message: string) => AppError,
): Promise<void> {
  const wanted: [string, string][] = [];
  if (automation.trigger.type === 'slack') wanted.push(['trigger.channel', automation.trigger.channel]);
  if (automation.notify.slack) wanted.push(['notify.slack', automation.notify.slack]);
  if (wanted.length === 0) return;
  const { channels } = await store.slack.mapping(projectId);
  for (const [path, channel] of wanted) {
    if (!channels.includes(channel)) {
      throw invalid(
        path,
        `names ${channel}, which is not mapped to this project: map it first (agentjobs project slack add ${projectId} --channel ${channel}, or the project's settings page)`,
      );
    }
  }
}
