/**
 * The last phase: commit and push the work, open the pull request (run/publish.ts), remove the
 * workspace and complete the job. Also the whole of a run whose job an earlier attempt already
 * published (it died before completing): that one finishes from the record.
 */
import type { ModelMessage } from 'ai';
import type { PublishedRun } from '../../store/queue/index.js';
import type { AgentResult } from '../agent-port.js';
import { finishPublished, publish } from '../publish.js';
import type { CheckedRun } from './checks.js';
import type { LocatedRun } from './prepare.js';
import { closeWorkspace, throwIfAborted } from './state.js';

/** Publishes the run's work and completes the job. */
export async function publishPhase(run: CheckedRun): Promise<void> {
  const { store, metrics } = run.deps;
  const { lease, control, result, checkRun } = run;
  metrics?.modelUsage(result.usage);
  // What the run's steps recorded is on the job already; completing adds only the rest.
  result.usage = run.usage.remainder(result.usage) as AgentResult['usage'];
  // A shutdown that came as the agent finished still publishes; a lost lease or an archive never.
  throwIfAborted(control.publishing);
  await store.queue.setPhase(lease, 'publishing');
  const conversation = conversationOf(run.history, result.messages);
  const { deliveredThrough } = run;
  const outcome = await publish({
    config: run.deps.config,
    store,
    lease,
    job: run.job,
    project: run.project,
    host: run.host,
    env: run.env,
    mirrorPath: run.mirrorPath,
    workspace: run.workspace,
    result,
    saved: { conversation, deliveredThrough },
    checks: checkRun && { run: checkRun, policy: run.project.onCheckFailure },
    redact: run.redact,
    signal: control.publishing,
    rebuiltFrom: run.baseMerge.rebuiltFrom,
  });
  await closeWorkspace(run);
  const completed = await store.queue.complete(lease, {
    summary: result.summary,
    title: outcome.title,
    prLink: outcome.prLink,
    usage: result.usage,
    filesChanged: outcome.filesChanged,
    ...(outcome.saved ? {} : { conversation, deliveredThrough }),
    headSha: outcome.headSha,
    draft: outcome.draft ?? false,
  });
  control.ended('completed');
  control.log.info({ outcome: completed, prLink: outcome.prLink, usage: result.usage }, 'job run finished');
}

/** Completes a job an earlier attempt published, from what it recorded; the agent does not run again. */
export async function finishEarlierRun(run: LocatedRun, published: PublishedRun): Promise<void> {
  const { store } = run.deps;
  const { lease, control } = run;
  control.log.info({ headSha: published.headSha }, 'finishing a run an earlier attempt published');
  await store.queue.setPhase(lease, 'publishing');
  const finished = await finishPublished({
    store,
    lease,
    job: run.job,
    project: run.project,
    host: run.host,
    published,
    redact: run.redact,
    signal: control.publishing,
  });
  const { summary, title, prLink, usage, filesChanged, headSha } = finished;
  const draft = published.pullRequest?.draft ?? false;
  const outcome = await store.queue.complete(lease, {
    summary,
    title,
    prLink,
    usage,
    filesChanged,
    headSha,
    draft,
  });
  control.ended('completed');
  control.log.info({ outcome, prLink }, 'job run finished');
}

/**
 * What to save for the next follow-up: the agent's messages when they already start with the
 * history (a whole conversation), else the history followed by them (this run's part only).
 */
export function conversationOf(history: ModelMessage[], messages: ModelMessage[]): ModelMessage[] {
  if (history.length === 0) return messages;
  const prefix = messages.slice(0, history.length);
  return JSON.stringify(prefix) === JSON.stringify(history) ? messages : [...history, ...messages];
}
