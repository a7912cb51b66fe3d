/**
 * What an issue event does to a project's `issue` automations (docs/automations.md, "Issues"):
 * an issue opened, or labelled, on the repository or Linear team an automation watches, with one of
 * its labels, becomes a run whose template gets the issue's title, body and URL (the title and body
 * as data, never instructions). One issue is one run per automation whatever the events about it
 * (GitHub sends an issue opened with a label as `opened`, then `labeled`; a host sends a delivery
 * again): the run is keyed by the issue, not by the event.
 */
import type { Automation, AutomationRun } from '../domain/automation.js';
import type { IssueEvent, LinearIssueEvent, ReceivedHostEvent } from '../domain/host-event.js';
import { type IssueTrigger, issueMatches, issueRunKey } from '../domain/issue-trigger.js';
import { type AutomationRunDeps, runAutomation } from './automation-run.js';

/** An issue event of either kind. */
export type AnyIssueEvent = IssueEvent | LinearIssueEvent;

export const isIssueEvent = (event: ReceivedHostEvent['event']): event is AnyIssueEvent =>
  event.kind === 'issue' || event.kind === 'linear_issue';

/** Whether `trigger` watches where the issue is, and the issue's labels (or its opening) match. */
export function issueConcerns(trigger: IssueTrigger, event: AnyIssueEvent): boolean {
  if (event.kind === 'linear_issue') {
    if (trigger.source !== 'linear' || trigger.team === null) return false;
    if (trigger.team.toLowerCase() !== event.team.toLowerCase()) return false;
  } else {
    if (trigger.source !== 'code_host') return false;
    const place = event.repository;
    const watched =
      trigger.repository === null
        ? place.kind === 'content'
        : place.kind === 'context' && place.name === trigger.repository;
    if (!watched) return false;
  }
  return issueMatches(trigger, event);
}

/** The key a run about this event is recorded under: the issue's, so that one issue is one run. */
export const issueEventRunKey = (event: AnyIssueEvent): string => issueRunKey(event);

/**
 * The automation's run for the issue: made now, or the one an earlier event about the same issue
 * made (then nothing starts).
 */
export async function onIssue(
  deps: AutomationRunDeps,
  automation: Automation,
  event: AnyIssueEvent,
): Promise<AutomationRun> {
  const { run } = await runAutomation(deps, {
    automation,
    trigger: { type: 'issue', source: event.url },
    context: {
      issue: { title: event.title, body: event.body, url: event.url },
      // A context repository's issue may be private to it: the docs pull request does not quote it.
      ...(event.kind === 'issue' && event.repository.kind === 'context'
        ? { contextRepository: event.repository.name }
        : {}),
    },
    hostEventId: issueEventRunKey(event),
  });
  return run;
}
