/**
 * Publishing a run (docs/architecture.md#the-queue-and-its-fencing): commit what the agent changed as the bot identity, then
 * - `pull_request` (default): push the job branch and open the pull request, or reuse the one the
 *   branch has; a branch with no commit over its base publishes nothing (`prLink` null);
 * - `push`: push the new commit straight onto the base branch, fast-forward only (a base that moved
 *   meanwhile fails the job rather than being overwritten); `prLink` stays null and the `commit`
 *   event names the base branch. Pushing into a local working copy that has the base checked out
 *   needs `receive.denyCurrentBranch=updateInstead` there, git's own safe way to keep it consistent.
 * In push mode, a commit that changes a setup input holds the project's next setup for a person's
 * review, recorded before the push (`holdSetupInputs`).
 * Right before pushing, the lease is checked once more, so an archived job publishes nothing.
 * Everything that leaves for git and the host (title, commit message, pull request text) passes the
 * run's redactor: the prompt is quoted there, and a prompt may hold a key. An automation's prompt
 * is quoted without what it rendered from a context repository (`jobs.pullRequestPrompt`), unless
 * the project's `quoteContext` says to quote it all.
 * Right after pushing, before anything else, the run records what it published and the outcome it
 * will complete with (`store.queue.recordPublished`); once the pull request is open, its link too.
 * A retry of a run that died after that point finishes from the record (`finishPublished`) instead
 * of running the agent again.
 */

import { checkSummary } from '../checks/report.js';
import type { Config } from '../config/config.js';
import { runLines } from '../domain/automation-prompt.js';
import type { CheckFailurePolicy, CheckRun } from '../domain/checks.js';
import type { Job } from '../domain/job.js';
import { DEMO_MODEL_ID } from '../domain/model-id.js';
import type { Project } from '../domain/project.js';
import type { Redactor } from '../domain/redact.js';
import { setupInputsAmong } from '../domain/setup-inputs.js';
import { pushRef } from '../git/push.js';
import { GitError, runGit } from '../git/run.js';
import type { Workspace } from '../git/workspace.js';
import type { CodeHost } from '../hosts/types.js';
import type { Lease, PublishedRun, SavedConversation } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import type { AgentResult } from './agent-port.js';
import { pushKeepingOthers } from './branch-push.js';
import { labelForChecks } from './checks-label.js';
import { RepositoryError } from './errors.js';

export interface PublishInput {
  config: { worker: Pick<Config['worker'], 'gitAuthorName' | 'gitAuthorEmail' | 'leaseMs'> };
  store: Store;
  lease: Lease;
  job: Job;
  project: Project;
  host: CodeHost;
  /** Credentials for git, from the host. */
  env: Record<string, string>;
  mirrorPath: string;
  workspace: Workspace;
  result: AgentResult;
  /** The conversation to save with the published state, so the completion need not carry it. */
  saved: SavedConversation;
  /** The last run of the job's checks and the project's policy for failures; null when none ran. */
  checks?: { run: CheckRun; policy: CheckFailurePolicy } | null;
  /** The run's redactor (`redactorFor`), applied to every text that leaves for git and the host. */
  redact: Redactor;
  signal: AbortSignal;
  /** The commit the branch was at before this run made it again on its base (`git/merge.ts`); null: it was not. */
  rebuiltFrom?: string | null;
}

export interface Published {
  prLink: string | null;
  /** The commit pushed, or null when nothing was. */
  headSha: string | null;
  /** Files the job changed: on its branch against the base, or in this commit in `push` mode. */
  filesChanged: number;
  title: string;
  /** Whether the pull request was opened as a draft. */
  draft?: boolean;
  /** Whether `recordPublished` saved the run's conversation (else the completion must). */
  saved: boolean;
}

export async function publish(input: PublishInput): Promise<Published> {
  const { config, store, lease, project, workspace, signal, redact } = input;
  // What the pull request may quote of the prompt: text an automation rendered from a context
  // repository (possibly private) stays out of it unless the project says to quote it.
  const quotable =
    input.job.trigger && !project.quoteContext ? await store.jobs.pullRequestPrompt(input.job.id) : null;
  // Redacted before anything is cut from them, so that no cut leaves half a key.
  const job = {
    ...input.job,
    prompt: redact(quotable ?? input.job.prompt),
    title: input.job.title && redact(input.job.title),
  };
  const result = {
    ...input.result,
    summary: redact(input.result.summary),
    title: input.result.title && redact(input.result.title),
  };
  const title = pullRequestTitle(result, job);
  const files = workspace.changedPaths();
  // A branch this run made from the base, with no commit but the one made now (every first run).
  const fromBase = workspace.isAtStartOf(job.baseRef);
  const sha = await workspace.commit({
    message: commitMessage(title, result.summary, job),
    authorName: config.worker.gitAuthorName,
    authorEmail: config.worker.gitAuthorEmail,
  });
  const pushMode = project.publish === 'push';
  if (sha) {
    await store.queue.appendEvent(lease, 'commit', {
      sha,
      files,
      branch: pushMode ? job.baseRef : job.source.ref,
    });
  }

  if (pushMode) {
    if (!sha) return { prLink: null, headSha: null, filesChanged: 0, title, saved: false };
    await holdSetupInputs(store, project, job, files);
    await store.queue.heartbeat(lease, config.worker.leaseMs);
    // No `+`: only a fast-forward of the base is accepted.
    await pushRef({
      mirrorPath: input.mirrorPath,
      source: sha,
      destination: `refs/heads/${job.baseRef}`,
      env: input.env,
      signal,
    }).catch((error: unknown) => {
      throw explainPushRefusal(error, job.baseRef);
    });
    const published: PublishedRun = {
      summary: result.summary,
      title,
      usage: result.usage,
      prLink: null,
      pullRequest: null,
      headSha: sha,
      filesChanged: files.length,
    };
    await store.queue.recordPublished(lease, published, input.saved);
    return { prLink: null, headSha: sha, filesChanged: files.length, title, saved: true };
  }

  // A commit just made is on the branch and not on the base: only without one can there be nothing to propose.
  const ahead = sha ? 1 : await commitsAhead(workspace, job.baseRef);
  // Nothing to propose. A follow-up of a job whose branch was merged and deleted keeps its old link.
  if (ahead === 0) return { prLink: job.prLink, headSha: null, filesChanged: 0, title, saved: false };

  await store.queue.heartbeat(lease, config.worker.leaseMs);
  const head = await pushJobBranch(input, job.source.ref);
  // The run's own commit tells its files, unless the push merged someone else's commits under it.
  const own = fromBase && sha && head === workspace.headCommit ? files : null;
  const filesChanged = await filesOnBranch(workspace, job.baseRef, head, own);
  // Failed checks under the `draft` policy open the pull request as a draft; the summary says why.
  const checks = input.checks;
  const failedDraft = checks?.run.status === 'failed' && checks.policy === 'draft';
  // A job an automation made keeps a line per run that made or continued it (grouping).
  const runs = job.trigger ? runLines(await store.automations.runsOfJob(job.id)) : '';
  const body =
    pullRequestBody(result.summary, job) +
    (runs ? `\n\n${runs}` : '') +
    (checks ? `\n\n${checkSummary(checks.run, checks.policy)}` : '');
  const pullRequest = { title, body, draft: job.draft || failedDraft };
  const published: PublishedRun = {
    summary: result.summary,
    title,
    usage: result.usage,
    prLink: null,
    pullRequest,
    headSha: head,
    filesChanged,
  };
  await store.queue.recordPublished(lease, published, input.saved);
  const prLink = await openPullRequest({ ...input, published }, pullRequest, checks?.run);
  return { prLink, headSha: head, filesChanged, title, saved: true, draft: pullRequest.draft };
}

/**
 * Pushes the job branch, never forced: commits someone else pushed meanwhile are merged under the
 * run's (branch-push.ts), each such merge recorded as a `commit` event. Returns the commit pushed.
 */
function pushJobBranch(input: PublishInput, branch: string): Promise<string> {
  const { store, lease } = input;
  return pushKeepingOthers({
    expect: input.rebuiltFrom,
    config: input.config,
    workspace: input.workspace,
    mirrorPath: input.mirrorPath,
    env: input.env,
    signal: input.signal,
    onMerge: (sha) =>
      store.queue.appendEvent(lease, 'commit', {
        sha,
        files: [],
        branch,
        merge: { base: branch, conflicts: [] },
      }),
  }).catch((error: unknown) => {
    throw explainProtectedBranch(error, branch);
  });
}

/**
 * Push mode lands the model's work on the base branch with no review, so a commit that changes
 * what the setup command reads holds the next setup until a person accepts it (docs/security.md,
 * "Setup and the environment"). Recorded before the push: a run that dies between the two leaves
 * a hold too many, never one too few.
 */
async function holdSetupInputs(store: Store, project: Project, job: Job, files: string[]): Promise<void> {
  if (!project.setupCommand || job.baseRef !== project.baseBranch) return;
  const inputs = setupInputsAmong(project.setupCommand, files);
  if (inputs.length > 0) await store.projects.holdSetup(project.id, { files: inputs, jobId: job.id });
}

/** What `finishPublished` needs: the run's lease and the job's project and code host. */
export interface FinishInput {
  store: Store;
  lease: Lease;
  job: Job;
  project: Project;
  host: CodeHost;
  published: PublishedRun;
  /** The run's redactor: a record an older version wrote may hold the prompt as it was. */
  redact: Redactor;
  signal: AbortSignal;
}

/**
 * Finishes a run that an earlier attempt published: opens its pull request if it was not yet
 * recorded as open (the host reuses the branch's pull request if it was), and returns what to
 * complete the job with.
 */
export async function finishPublished(input: FinishInput): Promise<PublishedRun> {
  const { published } = input;
  if (!published.pullRequest) return published;
  return { ...published, prLink: await openPullRequest(input, published.pullRequest), pullRequest: null };
}

/**
 * Opens (or updates) the pull request of a pushed branch and records its link; returns the link.
 * With the run's checks, labels it by their outcome (`labelForChecks`).
 */
async function openPullRequest(
  input: FinishInput,
  pullRequest: NonNullable<PublishedRun['pullRequest']>,
  checks?: CheckRun,
): Promise<string> {
  const { store, lease, job, published, redact } = input;
  const link = await input.host.openOrUpdatePullRequest({
    project: input.project,
    job,
    branch: job.source.ref,
    base: job.baseRef,
    ...pullRequest,
    title: redact(pullRequest.title),
    body: redact(pullRequest.body),
    headSha: published.headSha,
    signal: input.signal,
  });
  await store.queue.appendEvent(lease, 'pull_request', { url: link.url, number: link.number });
  await store.queue.recordPublished(lease, { ...published, prLink: link.url, pullRequest: null });
  if (checks) await labelForChecks(input, link, checks);
  return link.url;
}

/**
 * A code host's branch protection refusing a push, reworded to say what to change. The hosts say it
 * in their own words: GitHub "GH006: Protected branch update failed", GitLab "You are not allowed to
 * push code to protected branches", Gitea "branch … is protected".
 */
function explainProtectedBranch(error: unknown, branch: string): unknown {
  if (!(error instanceof GitError)) return error;
  if (!/GH006|protected branch|branch .* is protected/i.test(error.stderr)) return error;
  return new RepositoryError(
    `The code host refuses pushes to ${branch}: a branch protection rule covers it. Let the token's user push to it, or narrow the rule. (${error.message})`,
  );
}

/** Git's refusals of a push onto the base, reworded to say what to do. */
function explainPushRefusal(error: unknown, base: string): unknown {
  if (!(error instanceof GitError)) return error;
  const protectedBranch = explainProtectedBranch(error, base);
  if (protectedBranch !== error) return protectedBranch;
  if (/refusing to update checked out branch/.test(error.stderr)) {
    return new RepositoryError(
      `The repository has ${base} checked out in its working copy, so git refuses to push onto it. Use a bare repository, or run \`git config receive.denyCurrentBranch updateInstead\` in that working copy.`,
    );
  }
  if (/\[rejected\]|non-fast-forward|fetch first/.test(error.stderr)) {
    return new RepositoryError(
      `${base} moved while the job ran, and push mode only fast-forwards it. Send a follow-up to redo the change on the new ${base}.`,
    );
  }
  return error;
}

/** Commits on the branch that the base lacks: none, without git, while it is where it was made from the base. */
async function commitsAhead(workspace: Workspace, baseRef: string): Promise<number> {
  if (workspace.isAtStartOf(baseRef)) return 0;
  return Number(await git(workspace.dir, ['rev-list', '--count', `refs/heads/${baseRef}..HEAD`]));
}

/**
 * How many files the branch changed against the base, counted as paths (a moved file is two).
 * `committed`: every path of the one commit on a branch made from the base by this run (a first
 * run); then the count is read from the two trees, as `git diff --name-only --no-renames` counts.
 */
async function filesOnBranch(
  workspace: Workspace,
  baseRef: string,
  head: string,
  committed: string[] | null,
): Promise<number> {
  if (!committed) {
    const range = `refs/heads/${baseRef}...${head}`;
    return (await git(workspace.dir, ['diff', '--name-only', '--no-renames', '-z', range]))
      .split('\0')
      .filter(Boolean).length;
  }
  let changed = 0;
  for (const path of committed) {
    const [before, after] = [await workspace.entryAt(path, 'start'), await workspace.entryAt(path)];
    if (before?.mode !== after?.mode || before?.sha !== after?.sha) changed++;
  }
  return changed;
}

async function git(cwd: string, args: string[]): Promise<string> {
  return (await runGit(args, { cwd })).stdout.toString('utf8').trim();
}

const TITLE_LIMIT = 72;

/**
 * The job's title. The first run that completes names the job: the agent's title; else the
 * summary's first line when short; else the prompt's, cut short. Later runs (follow-ups, retries)
 * keep that name: their answer is a reply ("Done. I added …"), not a new name for the work. Only a
 * stopgap name, a prompt cut short or none at all, gives way to a title a later run brings.
 */
export function pullRequestTitle(
  result: Pick<AgentResult, 'title' | 'summary'>,
  job: Pick<Job, 'prompt' | 'title'>,
): string {
  const prompt = firstLine(job.prompt);
  const fallback = prompt ? cut(prompt, TITLE_LIMIT) : 'Changes by agentjobs';
  const stopgap = fallback !== prompt;
  const kept = job.title?.trim();
  if (kept && !(stopgap && kept === fallback)) return kept;
  const title = firstLine(result.title ?? '');
  if (title && !isChatLine(title)) return cut(title, TITLE_LIMIT);
  const summary = firstLine(result.summary);
  if (summary && summary.length <= TITLE_LIMIT && !isChatLine(summary)) return summary;
  return fallback;
}

/**
 * A first line that answers the user rather than names a change: more than one sentence ("Done. I
 * added …"), or an acknowledgement ("Done", "Sure, …").
 */
function isChatLine(line: string): boolean {
  return /[.!?…]\s+\p{Lu}/u.test(line) || /^(done|ok(ay)?|sure|all set|finished|here you go)\b/i.test(line);
}

function commitMessage(title: string, summary: string, job: Job): string {
  const body = summary.trim();
  return `${title}\n\n${body ? `${cut(body, 4000)}\n\n` : ''}agentjobs job: ${job.id}\n`;
}

function pullRequestBody(summary: string, job: Job): string {
  // Said by the service, not only in the demo's own summary, so no reader takes it for a model's work.
  const demo =
    job.model === DEMO_MODEL_ID
      ? '**Made by the agentjobs demo model** (model `demo`): no AI model was used. It shows the whole flow of a job with a small, labelled change.\n\n'
      : '';
  const prompt = cut(job.prompt.trim(), 2000)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return `${demo}${cut(summary.trim(), 20_000)}\n\n---\nPrompt:\n\n${prompt}\n\nagentjobs job: \`${job.id}\``;
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').trim();
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
