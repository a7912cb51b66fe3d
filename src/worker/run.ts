/**
 * One run of a claimed job: preparing (mirror, workspace) → running (the agent) → publishing
 * (commit, push, pull request) → completed; or failed, or stopped. Every store write is fenced by
 * the lease (`store.queue`), and the worker's heartbeat renews it (worker.ts, one statement for all
 * its runs); when the lease is lost or the job archived,
 * the run's signal aborts and nothing more is written or published. The workspace is removed
 * before the outcome is written, so the job can be claimed again at once without finding it.
 * An attempt that finds its job already published by an earlier attempt (which died before
 * completing) finishes from that record and does not run the agent again (publish.ts).
 * Everything the run hands out (events, summary, title, commit message and PR text made from them,
 * the job's error) is redacted by one redactor that knows the server's own secrets.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import type { CheckRun } from '../domain/checks.js';
import { ensureMirror } from '../git/mirror.js';
import { Workspace } from '../git/workspace.js';
import { removeWorktree } from '../git/worktree.js';
import type { RunOutcome } from '../metrics/index.js';
import type { ClaimedJob, Lease } from '../store/queue/index.js';
import { type AgentResult, contextWindowOf, isAgentError, type RunAgentOptions } from './agent-port.js';
import { ChecksFailedError, checkAndRepair, checkRunner } from './checks.js';
import { RunStopped, type StopReason } from './errors.js';
import { keepWorkOnBranch } from './keep-work.js';
import { finishPublished, publish } from './publish.js';
import type { RunControl, RunDependencies } from './run-context.js';
import { redactorFor, settle } from './settle.js';
import { liveUsage, spending, stepReservations } from './usage.js';

/** A run in progress, as the worker holds it. */
export interface ActiveRun {
  jobId: string;
  attempt: number;
  /** What the worker's heartbeat renews. */
  lease: Lease;
  /** Stops the run: `shutdown` hands the job back; `lost` and `archived` write nothing more. */
  stop(reason: StopReason): void;
  /** Settles when the run is over and its workspace removed; never rejects. */
  done: Promise<void>;
}

/** Starts the run of `claimed`, after `previous` (an earlier run of the same job still finishing). */
export function startRun(deps: RunDependencies, claimed: ClaimedJob, previous?: Promise<void>): ActiveRun {
  // `main` stops everything; `publishing` only what must not publish (a shutdown lets publishing finish).
  const main = new AbortController();
  const publishing = new AbortController();
  const stop = (reason: StopReason) => {
    if (!main.signal.aborted) main.abort(new RunStopped(reason));
    if (reason !== 'shutdown' && !publishing.signal.aborted) publishing.abort(new RunStopped(reason));
  };
  // Every line about the job names it and its project, so an operator can follow either.
  const log = deps.logger.child({
    jobId: claimed.job.id,
    projectId: claimed.job.projectId,
    attempt: claimed.attempt,
  });
  deps.metrics?.jobPickedUp((Date.now() - Date.parse(claimed.queuedAt)) / 1000);
  const done = (previous ?? Promise.resolve())
    .then(() => {
      const startedAt = performance.now();
      const ended = (outcome: RunOutcome) =>
        deps.metrics?.jobRunEnded(outcome, (performance.now() - startedAt) / 1000);
      return runJob(deps, claimed, { main: main.signal, publishing: publishing.signal, stop, log, ended });
    })
    .catch((error) => log.error({ err: error }, 'job run crashed'));
  const lease: Lease = { jobId: claimed.job.id, attempt: claimed.attempt, owner: deps.workerId };
  return { jobId: claimed.job.id, attempt: claimed.attempt, lease, stop, done };
}

async function runJob(deps: RunDependencies, claimed: ClaimedJob, control: RunControl): Promise<void> {
  const { config, store } = deps;
  const { job, attempt } = claimed;
  const { log } = control;
  // The mirror must be at least as new as upstream was when the run began (git/mirror.ts).
  const began = performance.now();
  const lease: Lease = { jobId: job.id, attempt, owner: deps.workerId };
  const redact = redactorFor(config);
  const worktreeDir = join(config.dataDir, 'worktrees', job.id);
  let mirrorPath: string | null = null;
  let workspace: Workspace | null = null;
  // The newest message handed to the agent: what a saved conversation covers.
  let deliveredThrough: string | null = null;
  const usage = liveUsage(store, lease);
  /** Set once there is a workspace: keeps its changes on the branch when the run hits its cost limit. */
  let keepWork: (() => Promise<string | null>) | null = null;
  const cleanUp = async () => {
    const open = workspace;
    workspace = null;
    try {
      if (open) await open.close();
      else if (mirrorPath && (await exists(worktreeDir))) await removeWorktree(mirrorPath, worktreeDir);
    } catch (error) {
      log.warn({ err: error }, 'could not remove the workspace');
    }
  };

  try {
    log.info('job run started');
    const project = await store.projects.get(job.projectId);
    if (!project) throw new Error(`project ${job.projectId} not found`);
    const host = deps.hosts(project.host);
    const published = await store.queue.published(job.id);
    if (published) {
      log.info({ headSha: published.headSha }, 'finishing a run an earlier attempt published');
      await store.queue.setPhase(lease, 'publishing');
      const finished = await finishPublished({
        store,
        lease,
        job,
        project,
        host,
        published,
        redact,
        signal: control.publishing,
      });
      const { summary, title, prLink, usage, filesChanged, headSha } = finished;
      const outcome = await store.queue.complete(lease, {
        summary,
        title,
        prLink,
        usage,
        filesChanged,
        headSha,
      });
      control.ended('completed');
      log.info({ outcome, prLink: finished.prLink }, 'job run finished');
      return;
    }
    // Checked first: without a model or a code host the run cannot succeed, so fail before any work.
    const model = deps.resolveModel(job.model, config);
    const env = await host.gitEnv(project);

    const mirrorsDir = join(config.dataDir, 'mirrors');
    mirrorPath = join(mirrorsDir, `${project.id}.git`);
    // A crashed run's worktree would keep its branch out of the fetch (see git/mirror.ts).
    if (await exists(worktreeDir)) await removeWorktree(mirrorPath, worktreeDir);
    await ensureMirror({
      mirrorsDir,
      projectId: project.id,
      repository: project.repository,
      env,
      freshSince: began,
      signal: control.main,
    });
    // The branch exists after the fetch when an earlier run pushed it: a follow-up or a retry continues it.
    workspace = await Workspace.create({
      mirrorPath,
      dir: worktreeDir,
      branch: job.source.ref,
      baseRef: job.baseRef,
      startFrom: 'branch-or-base',
    });
    throwIfAborted(control.main);
    const [open, mirror] = [workspace, mirrorPath];
    keepWork = () =>
      keepWorkOnBranch({
        config,
        store,
        lease,
        job,
        workspace: open,
        mirrorPath: mirror,
        env,
        redact,
        signal: control.publishing,
      });
    await store.queue.setPhase(lease, 'running');

    const history = (await store.queue.conversation(job.id)) as ModelMessage[];
    const prompts = await store.queue.takePrompts(lease);
    deliveredThrough = prompts.at(-1)?.id ?? null;
    const checkLoop = {
      store,
      lease,
      job,
      project,
      workspace,
      dataDir: config.dataDir,
      ...config.checks,
      redact,
      signal: control.main,
      metrics: deps.metrics,
    };
    const checks = checkRunner(checkLoop);
    const startedAt = Date.now();
    // The model's price and what this run may spend; the project's day is asked before each step.
    const spend = spending(config, job);
    const agentOptions = (options: Pick<RunAgentOptions, 'history' | 'prompts'>): RunAgentOptions => ({
      model,
      workspace: workspace as Workspace,
      ...options,
      takePendingPrompts: async () => {
        const more = await store.queue.takePending(lease);
        if (more.length > 0) deliveredThrough = more.at(-1)?.id ?? deliveredThrough;
        return more.map((prompt) => prompt.content);
      },
      price: spend.price,
      maxOutputTokens: spend.maxOutputTokens,
      reserveStep: stepReservations(store, lease),
      limits: { ...config.jobLimits, maxCostUsd: spend.maxCostUsd },
      stream: config.agent.modelStreaming,
      contextTokens: contextWindowOf(job.model, config.agent.contextTokens),
      modelOutageWaitMs: config.agent.modelOutageWaitMs,
      redact,
      signal: control.main,
      onEvent: usage.sink,
      onEvents: usage.sinkMany,
      ...(checks.enabled ? { runChecks: checks.forAgent } : {}),
    });
    let result: AgentResult =
      prompts.length === 0
        ? // Nothing new to do (every message is already answered): keep what the job has.
          {
            summary: job.summary ?? '',
            title: job.title,
            messages: history,
            usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, steps: 0, costUsd: null },
            filesChanged: [],
          }
        : await deps.runAgent(agentOptions({ history, prompts: prompts.map((prompt) => prompt.content) }));
    let checkRun: CheckRun | null = null;
    if (prompts.length > 0) {
      ({ result, run: checkRun } = await checkAndRepair(checkLoop, checks, result, {
        limits: { ...config.jobLimits, maxCostUsd: spend.maxCostUsd },
        startedAt,
        run: ({ limits, ...options }) => deps.runAgent({ ...agentOptions(options), limits: { ...limits } }),
      }));
      // Push mode has no drafts: under `draft`, failing work is not pushed onto the base either.
      const policy = project.onCheckFailure;
      if (
        checkRun?.status === 'failed' &&
        (policy === 'fail' || (policy === 'draft' && project.publish === 'push'))
      )
        throw new ChecksFailedError(checkRun, { messages: result.messages, usage: result.usage });
    }
    deps.metrics?.modelUsage(result.usage);
    // What the run's steps recorded is on the job already; completing adds only the rest.
    result.usage = usage.remainder(result.usage) as AgentResult['usage'];
    // A shutdown that came as the agent finished still publishes; a lost lease or an archive never.
    throwIfAborted(control.publishing);
    await store.queue.setPhase(lease, 'publishing');
    const conversation = conversationOf(history, result.messages);
    const outcome = await publish({
      config,
      store,
      lease,
      job,
      project,
      host,
      env,
      mirrorPath,
      workspace,
      result,
      saved: { conversation, deliveredThrough },
      checks: checkRun && { run: checkRun, policy: project.onCheckFailure },
      redact,
      signal: control.publishing,
    });
    await cleanUp();
    const completed = await store.queue.complete(lease, {
      summary: result.summary,
      title: outcome.title,
      prLink: outcome.prLink,
      usage: result.usage,
      filesChanged: outcome.filesChanged,
      ...(outcome.saved ? {} : { conversation, deliveredThrough }),
      headSha: outcome.headSha,
    });
    control.ended('completed');
    log.info({ outcome: completed, prLink: outcome.prLink, usage: result.usage }, 'job run finished');
  } catch (error) {
    // What the run's steps recorded is on the job already; the failure adds only the rest.
    const spent = isAgentError(error) || error instanceof ChecksFailedError ? error.partial : null;
    if (spent) {
      deps.metrics?.modelUsage(spent.usage);
      spent.usage = usage.remainder(spent.usage) as typeof spent.usage;
    }
    if (keepWork && isAgentError(error) && error.code === 'budget_exceeded') {
      const kept = await keepWork().catch((keepError: unknown) => {
        log.warn({ err: keepError }, 'could not keep the work on the branch');
        return null;
      });
      if (kept) error.message = `${error.message} ${kept}`;
    }
    await cleanUp();
    await settle(deps, lease, control, error, deliveredThrough, redact);
  } finally {
    await cleanUp();
  }
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

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
