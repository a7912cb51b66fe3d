/**
 * Commands on the agent's own pull requests (docs/automations.md, "Commands on the agent's pull
 * requests"): a trusted comment on a job's pull request that is only the mention and `stop`,
 * `rebase` or `retry` (`domain/pull-request-command.ts`). The comment automation that read it
 * records its run as for any comment, and the service answers on the thread with what it did.
 * - `stop`: no automation run groups into the job from now on (each opens a new job and pull
 *   request); the job stays as it is, and a comment that mentions the service still continues it.
 *   The run is `skipped` as `stopped`, with the job.
 * - `rebase` and `retry`: a follow-up on the job (the run `grouped`), whose message waits for the
 *   job's next run: a `rebase` run makes the branch again on its base first (run/phases/prepare.ts),
 *   a `retry` run is given the job's last prompt again.
 */
import type { Automation, AutomationRun } from '../domain/automation.js';
import type { CommentEvent, ReceivedHostEvent } from '../domain/host-event.js';
import type { Job } from '../domain/job.js';
import { type PullRequestCommand, rebasePrompt, retryPrompt } from '../domain/pull-request-command.js';
import { type AutomationRunDeps, runAutomation } from './automation-run.js';
import { answerOnThread, type ThreadReplyDeps } from './thread-reply.js';

/** A command read from a comment on the pull request of `job`, by an author the automation trusts. */
export interface CommandRequest {
  automation: Automation;
  received: ReceivedHostEvent;
  event: CommentEvent;
  job: Job;
  command: PullRequestCommand;
  /** The project's mention, for the answer to `stop`. */
  mention: string;
}

/** Carries out the command and answers on the thread; returns the automation's run for the comment. */
export async function runPullRequestCommand(
  deps: AutomationRunDeps & ThreadReplyDeps,
  request: CommandRequest,
): Promise<AutomationRun> {
  const { automation, received, event, job, command } = request;
  const trigger = { type: 'comment' as const, source: event.url };
  if (command === 'stop') {
    const start = { automation, trigger, hostEventId: received.id };
    const begun = await deps.store.automations.beginRun(start);
    // This event's stop was carried out and answered by an earlier try.
    if (!begun.started && begun.run) return begun.run;
    await deps.store.automations.stopGrouping(job.id);
    const end = {
      outcome: 'skipped' as const,
      reason: 'stopped' as const,
      jobId: job.id,
      detail: `${event.author} said stop on the pull request: no automation run groups into it any more.`,
    };
    const run = begun.started
      ? await deps.store.automations.settleRun(begun.id, end)
      : await deps.store.automations.recordRun({ ...start, ...end });
    await answerOnThread(deps, received, event, job, stopAnswer(request.mention));
    return run;
  }
  const prompt =
    command === 'retry'
      ? retryPrompt(event.author, (await deps.store.jobs.lastPrompt(job.id)) ?? job.prompt)
      : rebasePrompt(event.author, job.baseRef);
  const { run, job: continued } = await runAutomation(deps, {
    automation,
    trigger,
    context: { comment: { body: event.body, author: event.author, url: event.url } },
    followUpJobId: job.id,
    command: { name: command, prompt },
    hostEventId: received.id,
  });
  if (continued) await answerOnThread(deps, received, event, continued, commandAnswer(command, continued));
  return run;
}

function stopAnswer(mention: string): string {
  return `Stopped: automation runs no longer add to this pull request; the next one opens a new pull request. A comment here that mentions ${mention} still continues this job.`;
}

function commandAnswer(command: 'rebase' | 'retry', job: Job): string {
  const when = job.phase === 'queued' ? 'now' : 'once its current run ends';
  return command === 'rebase'
    ? `Rebasing: the branch will be made again from ${job.baseRef} as it is now, with this job's changes re-applied, in the job's next run (${when}).`
    : `Retrying: the job's last prompt runs again, in the job's next run (${when}).`;
}
