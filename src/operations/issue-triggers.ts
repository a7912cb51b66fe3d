/**
 * Saving an `issue` trigger (docs/automations.md, "Issues"): its defaults, and the rules a saved
 * one keeps. `code_host` issues come from the content repository or a named context repository of
 * the project, never from a team; `linear` issues from one team, named by its key.
 */
import { AutomationRuleError } from '../domain/automation.js';
import type { IssueSource, IssueTrigger } from '../domain/issue-trigger.js';

/** An issue trigger as a client sends it. */
export interface IssueTriggerInput {
  type: 'issue';
  source?: IssueSource | undefined;
  repository?: string | null | undefined;
  team?: string | null | undefined;
  labels?: string[] | undefined;
}

/** The trigger with its defaults: from the code host, on the content repository, any issue opened. */
export function normalIssueTrigger(input: IssueTriggerInput): IssueTrigger {
  const source = input.source ?? 'code_host';
  // Labels as typed (trimmed), each once whatever its case.
  const labels: string[] = [];
  for (const label of input.labels ?? []) {
    const trimmed = label.trim();
    if (!labels.some((kept) => kept.toLowerCase() === trimmed.toLowerCase())) labels.push(trimmed);
  }
  return {
    type: 'issue',
    source,
    repository: input.repository ?? null,
    team: input.team?.trim() ?? null,
    labels,
  };
}

const TEAM_KEY = /^[A-Za-z0-9_]{1,50}$/;

/**
 * Checks an issue trigger against the project's context repositories (`names`).
 *
 * @throws AutomationRuleError naming `trigger.repository` or `trigger.team`
 */
export function checkIssueTrigger(trigger: IssueTrigger, names: () => Promise<string[]>): Promise<void> {
  if (trigger.source === 'linear') {
    if (trigger.repository !== null)
      throw new AutomationRuleError(
        'trigger.repository',
        'is for code_host issues; a Linear trigger names a team',
      );
    if (trigger.team === null || !TEAM_KEY.test(trigger.team))
      throw new AutomationRuleError('trigger.team', "must be the Linear team's key (ENG, as in ENG-123)");
    return Promise.resolve();
  }
  if (trigger.team !== null)
    throw new AutomationRuleError(
      'trigger.team',
      'is for Linear issues: set source to linear, or leave team out',
    );
  return checkRepository(trigger.repository, names);
}

async function checkRepository(repository: string | null, names: () => Promise<string[]>): Promise<void> {
  if (repository === null) return;
  const known = await names();
  if (!known.includes(repository)) {
    throw new AutomationRuleError(
      'trigger.repository',
      known.length === 0
        ? 'names no context repository: the project has none (leave it out for the content repository)'
        : `names no context repository of the project (it has ${known.join(', ')}; leave it out for the content repository)`,
    );
  }
}
