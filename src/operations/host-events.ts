/**
 * What a code host's event does to a project's automations (docs/automations.md): the
 * receiver (`POST /v2/hooks/…`) and the poller record a `ReceivedHostEvent`, then hand it here.
 * - A push (or a merged pull request) on a context repository's branch runs its `code_change`
 *   automations, once per new head (a head seen already, by a push and the merge it came from, or
 *   by a hook and the poll, is a `duplicate`); the poller's first look at a branch starts nothing.
 * - The same on the content repository runs `content_change` automations, leaving out the
 *   service's own commits and merges (their `agentjobs job:` trailer, or a merge of a job branch).
 * - A comment that mentions the project's mention runs `comment` automations: a follow-up on the
 *   job whose pull request it is, else a new job; only from authors the automation names, or that
 *   the host, asked once per comment, says can write to the thread's repository. On the job's
 *   pull request, a comment that is only the mention and a command (`stop`, `rebase`, `retry`) is
 *   that command instead (`pull-request-commands.ts`).
 * Every automation that saw the event gets a run, `skipped` with its reason when nothing started,
 * and one only: each run is keyed by the event, so the event's next try (after an error, or after
 * its process died) runs only the automations that have no run for it yet. An event that still
 * fails after its tries ends in `failed` runs (`failHostEvent`).
 */
import {
  type Automation,
  type AutomationRun,
  type CodeChangeTrigger,
  type ContentChangeTrigger,
  DEFAULT_MENTION,
} from '../domain/automation.js';
import type { TriggerContext } from '../domain/automation-prompt.js';
import type {
  CommentEvent,
  PullRequestMergedEvent,
  PushEvent,
  PushedCommit,
  ReceivedHostEvent,
  RepositoryMatch,
} from '../domain/host-event.js';
import { pullRequestCommandOf } from '../domain/pull-request-command.js';
import { filterByPattern } from '../git/glob.js';
import { type AutomationRunDeps, runAutomation } from './automation-run.js';
import { runPullRequestCommand } from './pull-request-commands.js';
import { answerOnThread, type ThreadReply } from './thread-reply.js';

export type { ThreadReply } from './thread-reply.js';

import { isIssueEvent, issueConcerns, issueEventRunKey, onIssue } from './issue-events.js';

/** What the dispatch needs besides a run's own. */
export interface HostEventDeps extends AutomationRunDeps {
  /** The word that calls the service in a comment; `@agentjobs` when absent. */
  mention?: (projectId: string) => Promise<string>;
  /**
   * Answers on the thread of a comment that started or continued a job, with the job's link (and
   * its pull request's, once it has one). A reply that fails is logged; the run stands.
   */
  reply?: (reply: ThreadReply) => Promise<void>;
  /**
   * Whether a comment's author may write to the thread's repository, as its host says when asked.
   * Asked only when no automation's `allowedAuthors` names the author, and once per event. Throws
   * to have the event tried again (the host could not be reached). Absent, only named authors are
   * trusted.
   */
  authorCanWrite?: (projectId: string, event: CommentEvent) => Promise<boolean>;
  /**
   * The unified diff and changed files between two commits of a repository, for
   * `{{change.diff}}`, and the commits between them (for a push that named none: the poller's when
   * automations stood at different heads); absent, or when it throws, the diff reads `(none)` and
   * the files and commits are the ones the host named.
   */
  readChange?: (
    projectId: string,
    repository: RepositoryMatch,
    from: string | null,
    to: string,
  ) => Promise<{ diff: string; files: string[]; commits?: PushedCommit[] }>;
}

/** What came of an event: one run per automation that saw it. */
export interface HostEventOutcome {
  runs: AutomationRun[];
}

const SERVICE_TRAILER = /^agentjobs job: `?[0-9A-Za-z_-]+`?$/m;
const JOB_BRANCH_MERGE =
  /^Merge (pull request #\d+ from \S*agentjobs\/|branch '\S*agentjobs\/|remote-tracking branch '\S*agentjobs\/)/;

/** Whether the service made this commit (its trailer), or it merges one of the service's job branches. */
export const isServiceCommit = (message: string) =>
  SERVICE_TRAILER.test(message) || JOB_BRANCH_MERGE.test(message);

/**
 * Runs the project's automations that `received` concerns. With `duplicate: true` (a delivery
 * seen before) every one of them records a run skipped as `duplicate` and nothing starts.
 */
export async function processHostEvent(
  deps: HostEventDeps,
  received: ReceivedHostEvent,
  options: { duplicate?: boolean } = {},
): Promise<HostEventOutcome> {
  const automations = (await deps.store.automations.list(received.projectId)).filter((automation) =>
    concerns(automation, received),
  );
  const { event } = received;
  // A merge the host told of: what the automations' runs show (`accepted`) from now on.
  if (event.kind === 'pull_request_merged' && event.repository.kind === 'content')
    await deps.store.hostPullRequests.recordHostState(received.projectId, event.number, 'merged');
  const runs: AutomationRun[] = [];
  deps = withOneAuthorCheck(deps);
  for (const automation of automations) {
    if (options.duplicate) {
      // A repeat of a delivery: a run of its own, not the event's (which its first delivery has).
      runs.push(await skip(deps, automation, received, 'duplicate', { keyed: false }));
      continue;
    }
    const run = await dispatch(deps, automation, received);
    if (run) runs.push(run);
  }
  return { runs };
}

/** Whether the automation's trigger watches what the event is about. */
function concerns(automation: Automation, { event }: ReceivedHostEvent): boolean {
  const { trigger } = automation;
  if (isIssueEvent(event)) return trigger.type === 'issue' && issueConcerns(trigger, event);
  if (event.kind === 'comment') return trigger.type === 'comment';
  if (trigger.type === 'code_change') {
    return (
      event.repository.kind === 'context' &&
      event.repository.name === trigger.repository &&
      event.branch === trigger.branch
    );
  }
  if (trigger.type === 'content_change')
    return event.repository.kind === 'content' && event.branch === trigger.branch;
  return false;
}

/** The run's source: a commit id for a push, the URL of a pull request or comment. */
function sourceOf({ event }: ReceivedHostEvent): string {
  if (event.kind === 'push') return event.after;
  return event.url;
}

async function skip(
  deps: HostEventDeps,
  automation: Automation,
  received: ReceivedHostEvent,
  reason: AutomationRun['reason'] & string,
  options: { keyed?: boolean } = {},
): Promise<AutomationRun> {
  return deps.store.automations.recordRun({
    automation,
    trigger: { type: automation.trigger.type, source: sourceOf(received) },
    ...(options.keyed === false ? {} : { hostEventId: received.id }),
    outcome: 'skipped',
    reason,
    jobId: null,
  });
}

/**
 * Ends an event that failed on every try: each automation it concerns that has no run for it
 * gets a `failed` run with `detail` (what stopped the last try); one that ran keeps its run.
 */
export async function failHostEvent(
  deps: HostEventDeps,
  received: ReceivedHostEvent,
  detail: string,
): Promise<HostEventOutcome> {
  const automations = (await deps.store.automations.list(received.projectId)).filter((automation) =>
    concerns(automation, received),
  );
  const runs: AutomationRun[] = [];
  for (const automation of automations) {
    runs.push(
      await deps.store.automations.recordRun({
        automation,
        trigger: { type: automation.trigger.type, source: sourceOf(received) },
        // An issue's run is keyed by the issue: an earlier event about it that ran keeps its run.
        hostEventId: isIssueEvent(received.event) ? issueEventRunKey(received.event) : received.id,
        outcome: 'failed',
        reason: 'error',
        jobId: null,
        detail,
      }),
    );
  }
  return { runs };
}

/** The automation's run for the event; null for a comment that does not call the service (not an event it saw). */
async function dispatch(
  deps: HostEventDeps,
  automation: Automation,
  received: ReceivedHostEvent,
): Promise<AutomationRun | null> {
  const { event } = received;
  if (event.kind === 'comment') {
    const mention = (await deps.mention?.(received.projectId)) ?? DEFAULT_MENTION;
    if (!mentions(event.body, mention)) return null;
    if (!automation.enabled) return skip(deps, automation, received, 'disabled');
    return onComment(deps, automation, received, event, mention);
  }
  if (!automation.enabled) return skip(deps, automation, received, 'disabled');
  if (isIssueEvent(event)) return onIssue(deps, automation, event);
  const trigger = automation.trigger as CodeChangeTrigger | ContentChangeTrigger;
  return onChange(deps, automation, trigger, received, event);
}

async function onChange(
  deps: HostEventDeps,
  automation: Automation,
  trigger: CodeChangeTrigger | ContentChangeTrigger,
  received: ReceivedHostEvent,
  event: PushEvent | PullRequestMergedEvent,
): Promise<AutomationRun> {
  const head = event.kind === 'push' ? event.after : event.mergeCommit;
  const own = trigger.type === 'content_change';
  let commits: PushedCommit[] = event.kind === 'push' ? event.commits : [];
  if (own) {
    if (
      event.kind === 'pull_request_merged' &&
      (await isServicePullRequest(deps, received.projectId, event))
    ) {
      return skip(deps, automation, received, 'no_change');
    }
    commits = commits.filter((commit) => !isServiceCommit(commit.message));
    if (event.kind === 'push' && event.commits.length > 0 && commits.length === 0)
      return skip(deps, automation, received, 'no_change');
  }
  if (head === null) return skip(deps, automation, received, 'no_change');
  const { claimed, previous } = await deps.store.automations.claimHead(automation.id, head);
  if (!claimed) return skip(deps, automation, received, 'duplicate');
  // A change that made no job gives its head back, so the next change's diff covers its commits.
  const release = () => deps.store.automations.releaseHead(automation.id, head, previous);
  try {
    const run = await runChange(deps, automation, trigger, received, event, { head, previous, commits });
    if (run.outcome === 'skipped' && GIVE_BACK.has(run.reason ?? '')) await release();
    return run;
  } catch (error) {
    await release().catch((releaseError: unknown) => {
      deps.log?.warn({ err: releaseError, automationId: automation.id }, 'could not give back a head');
    });
    throw error;
  }
}

/** Skips after which a claimed head is given back: the change was not dealt with. */
const GIVE_BACK: ReadonlySet<string> = new Set(['limit', 'budget_exceeded', 'invalid']);

/** The run of a change whose head this automation took (`previous` the head before it). */
async function runChange(
  deps: HostEventDeps,
  automation: Automation,
  trigger: CodeChangeTrigger | ContentChangeTrigger,
  received: ReceivedHostEvent,
  event: PushEvent | PullRequestMergedEvent,
  taken: { head: string; previous: string | null; commits: PushedCommit[] },
): Promise<AutomationRun> {
  const { head, previous } = taken;
  const own = trigger.type === 'content_change';
  let { commits } = taken;
  // The poller's first look at a branch only learns where it stands: history before it starts nothing.
  if (received.host === 'poll' && event.kind === 'push' && event.before === null && previous === null) {
    return skip(deps, automation, received, 'no_change');
  }
  // Every commit since the head this automation last saw: a change it gave back (no job made)
  // is covered again by the next, whatever the push says it started from.
  const from = event.kind === 'push' ? (previous ?? event.before) : previous;
  const named = [...new Set(commits.flatMap((commit) => commit.files))];
  const change = await readChange(deps, received, event.repository, { from, to: head }, named);
  const pushNamedAll = event.kind === 'push' && event.commits.length > 0 && from === event.before;
  if (event.kind === 'push' && !pushNamedAll && change.commits) {
    // The push named no commits, or fewer than the range: the ones read from the repository stand for them.
    commits = own ? change.commits.filter((commit) => !isServiceCommit(commit.message)) : change.commits;
  }
  if (own && event.kind === 'push' && commits.length === 0)
    return skip(deps, automation, received, 'no_change');
  if (trigger.paths && change.files.length > 0) {
    const matched = await matchesAny(change.files, trigger.paths);
    if (!matched) return skip(deps, automation, received, 'paths_not_matched');
  }
  const context: TriggerContext = {
    change: {
      repository: trigger.type === 'code_change' ? trigger.repository : 'content',
      branch: event.branch,
      from,
      to: head,
      commits: commits.map((commit) => ({ id: commit.id, message: commit.message })),
      pullRequests:
        event.kind === 'pull_request_merged'
          ? [{ title: event.title, body: event.body, url: event.url }]
          : [],
      files: change.files,
      diff: change.diff,
    },
    ...(trigger.type === 'code_change' ? { contextRepository: trigger.repository } : {}),
  };
  const { run } = await runAutomation(deps, {
    automation,
    trigger: { type: trigger.type, source: sourceOf(received) },
    context,
    hostEventId: received.id,
  });
  return run;
}

async function isServicePullRequest(deps: HostEventDeps, projectId: string, event: PullRequestMergedEvent) {
  if (SERVICE_TRAILER.test(event.body)) return true;
  return (await deps.store.automations.jobIdByPullRequest(projectId, event.url)) !== undefined;
}

async function readChange(
  deps: HostEventDeps,
  received: ReceivedHostEvent,
  repository: RepositoryMatch,
  { from, to }: { from: string | null; to: string },
  named: string[],
): Promise<{ diff: string; files: string[]; commits?: PushedCommit[] }> {
  if (!deps.readChange) return { diff: '', files: named };
  try {
    return await deps.readChange(received.projectId, repository, from, to);
  } catch (error) {
    deps.log?.warn(
      { err: error, projectId: received.projectId },
      'could not read the change for an automation',
    );
    return { diff: '', files: named };
  }
}

async function matchesAny(files: string[], patterns: string[]): Promise<boolean> {
  for (const pattern of patterns) {
    // A pattern with a slash matches whole paths; one without, file names (as list_files does).
    if ((await filterByPattern(files, '', pattern)).length > 0) return true;
  }
  return false;
}

async function onComment(
  deps: HostEventDeps,
  automation: Automation,
  received: ReceivedHostEvent,
  event: CommentEvent,
  mention: string,
): Promise<AutomationRun> {
  const named = automation.allowedAuthors.some(
    (author) => author.toLowerCase() === event.author.toLowerCase(),
  );
  const trusted = named || ((await deps.authorCanWrite?.(received.projectId, event)) ?? false);
  if (!trusted) return skip(deps, automation, received, 'untrusted_author');
  const pulled = await jobOfPullRequest(deps, received.projectId, event);
  const command = pulled && pullRequestCommandOf(event.body, mention);
  if (pulled && command)
    return runPullRequestCommand(deps, { automation, received, event, job: pulled, command, mention });
  const jobId = pulled?.id;
  const body =
    jobId === undefined
      ? `${event.target.type === 'pull_request' ? 'Pull request' : 'Issue'} #${event.target.number} "${event.target.title}" (${event.target.url}):\n\n${event.body}`
      : event.body;
  const { run, job } = await runAutomation(deps, {
    automation,
    trigger: { type: 'comment', source: event.url },
    context: {
      comment: { body, author: event.author, url: event.url },
      ...(event.repository.kind === 'context' ? { contextRepository: event.repository.name } : {}),
    },
    ...(jobId ? { followUpJobId: jobId } : {}),
    hostEventId: received.id,
  });
  if (job) await answerOnThread(deps, received, event, job);
  return run;
}

/** `deps` whose author check asks the host at most once: every automation of one event shares the answer. */
function withOneAuthorCheck(deps: HostEventDeps): HostEventDeps {
  const ask = deps.authorCanWrite;
  if (!ask) return deps;
  let answer: Promise<boolean> | undefined;
  return { ...deps, authorCanWrite: (projectId, event) => (answer ??= ask(projectId, event)) };
}

/** The job whose pull request the comment is on, unless it is archived (then a new job goes). */
async function jobOfPullRequest(deps: HostEventDeps, projectId: string, event: CommentEvent) {
  if (event.target.type !== 'pull_request') return undefined;
  const jobId = await deps.store.automations.jobIdByPullRequest(projectId, event.target.url);
  if (jobId === undefined) return undefined;
  const job = await deps.store.jobs.get(projectId, jobId);
  return job && job.status !== 'archived' ? job : undefined;
}

/** Whether `body` calls `mention` as a word of its own (`@agentjobs`, not `@agentjobsbot`). */
export function mentions(body: string, mention: string): boolean {
  const escaped = mention.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w@])${escaped}(?![\\w-])`, 'i').test(body);
}
