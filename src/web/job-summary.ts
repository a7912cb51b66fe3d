/**
 * The part of a job's page that changes as it runs (docs/dashboard.md): status, result, plan,
 * checks, diff, and the prompts with their runs' summaries. The page shows it, and its live script swaps it in again when an event says so.
 */
import { join } from 'node:path';
import type { CheckProblem, CheckRun } from '../domain/checks.js';
import type { JobEvent } from '../domain/events.js';
import { formatUsd, type Job } from '../domain/job.js';
import { FAILURE_ADVICE } from '../domain/job-failures.js';
import { promptTurns, TURN_EVENT_TYPES } from '../domain/job-turns.js';
import { DEMO_MODEL_ID } from '../domain/model-id.js';
import type { Project } from '../domain/project.js';
import { readChanges } from '../git/diff.js';
import type { Store } from '../store/store.js';
import { renderDiff } from './diff.js';
import { clip, type Html, html, safeHref, time } from './html.js';
import { promptsSection } from './job-prompts.js';

/** What the summary reads: the store, and the data directory whose mirrors hold unpublished commits. */
export interface SummarySources {
  store: Store;
  dataDir: string;
}

export const statusBadge = (job: Job) =>
  html`<span class="badge ${job.status}">${job.status}</span>${job.phase ? html` <span class="hint">${job.phase}</span>` : ''}`;

/** The diff of a local project's job: its branch against the base, read from the repository. */
async function jobDiff(
  sources: SummarySources,
  project: Project,
  job: Job,
  events: JobEvent[],
): Promise<Html> {
  const { store } = sources;
  const commits = events.filter((e) => e.type === 'commit');
  if (commits.length === 0) return html`<div class="pad">No commits yet.</div>`;
  if (project.host !== 'local') {
    const files = [...new Set(commits.flatMap((e) => e.data.files))];
    return html`<ul class="commits">${files.map((f) => html`<li><code>${f}</code></li>`)}</ul>${job.prLink ? html`<div class="pad">The full diff is on <a href="${safeHref(job.prLink)}">the pull request</a>.</div>` : ''}`;
  }
  const pull = await store.pullRequests.getByBranch(project.id, job.source.ref);
  const first = commits[0]?.data.sha ?? '';
  const last = commits.at(-1)?.data.sha ?? '';
  // A pull request's diff is against its base; a job that pushed to the base shows its own commits.
  const [base, head] =
    pull && pull.state !== 'merged' ? [`refs/heads/${pull.baseBranch}`, last] : [`${first}^`, last];
  // A job that failed before publishing (or one whose branch was deleted) has its commits only in
  // the service's mirror of the repository, where its run made them.
  const mirror = join(sources.dataDir, 'mirrors', `${project.id}.git`);
  for (const repository of [project.repository, mirror]) {
    try {
      return renderDiff(await readChanges(repository, base, head));
    } catch {}
  }
  return html`<div class="pad">The diff cannot be read: its commits are neither in the repository nor in the service's copy of it.</div>`;
}

/** Why a job has no pull request, as far as its state tells. */
function noPullRequest(project: Project, job: Job): string {
  if (project.publish === 'push') return `none: this project pushes straight to ${job.baseRef}`;
  if (job.status === 'active') return 'none yet: it opens when the agent has changed files';
  if (job.status === 'failed') return 'none: the job failed before publishing (see the error below)';
  if (job.status === 'archived') return 'none: the job was archived';
  return 'none: the agent changed no files';
}

/** The job's model; the demo model's jobs say plainly that no AI model made them. */
const modelLabel = (model: string): Html | string =>
  model === DEMO_MODEL_ID
    ? html`<code>demo</code> · demo model: a small labelled change, no AI model was used`
    : model;

/** What changes as the job runs: status, result, plan, diff and prompts. The live page swaps it in. */
export async function jobSummary(sources: SummarySources, project: Project, job: Job): Promise<Html> {
  const { store } = sources;
  // Read apart from the activity, so a job with more events than the page shows still has its
  // latest plan and its whole commit range.
  const events = await store.events.ofTypes(job.id, ['plan', 'commit', ...TURN_EVENT_TYPES]);
  const plan = events.findLast((e) => e.type === 'plan');
  const items = plan?.data.items ?? [];
  return html`<section><h2>Status</h2><dl class="facts">
      <dt>Status</dt><dd id="job-status">${statusBadge(job)}</dd>
      <dt>Pull request</dt><dd id="job-pr">${job.prLink ? html`<a href="${safeHref(job.prLink)}">${job.prLink}</a>` : noPullRequest(project, job)}</dd>
      ${job.title ? html`<dt>Title</dt><dd>${job.title}</dd>` : ''}
      ${job.error ? html`<dt>Error</dt><dd class="bad"><code>${job.error.code}</code> ${job.error.message}<br><small id="job-error-advice">${FAILURE_ADVICE[job.error.code]}</small></dd>` : ''}
      <dt>Branch</dt><dd><code>${job.source.ref}</code> → <code>${job.baseRef}</code></dd>
      <dt>Model</dt><dd>${modelLabel(job.model)}</dd>
      <dt>Usage</dt><dd>${job.usage.steps} steps · ${job.usage.inputTokens} tokens in (${job.usage.cachedInputTokens} cached) · ${job.usage.outputTokens} out · ${job.filesChanged} files changed</dd>
      <dt>Cost</dt><dd id="job-cost">${formatUsd(job.usage.costUsd)}</dd>
      <dt>Created</dt><dd>${time(job.createdAt)}${job.completedAt ? html` · finished ${time(job.completedAt)}` : ''}</dd>
    </dl></section>
    ${
      items.length
        ? html`<section><h2>Plan</h2><ul class="plan">${items.map((item) => {
            const { status } = item;
            return html`<li class="${status}">${item.content}${status === 'in_progress' && job.status === 'active' ? html` <span class="badge active">now</span>` : ''}</li>`;
          })}</ul></section>`
        : ''
    }
    ${job.checks ? checksSection(job.checks) : ''}
    <section><h2>Changes</h2>${await jobDiff(sources, project, job, events)}</section>
    ${promptsSection(job, promptTurns(job, events))}`;
}

/**
 * The job's latest check run: each check's outcome, every problem where it is, and the notes:
 * problems the touched files already had on the base, which did not gate the job.
 */
function checksSection(run: CheckRun): Html {
  const badge = (status: string) =>
    html`<span class="badge ${status === 'passed' ? 'open' : status === 'failed' ? 'failed' : 'active'}">${status}</span>`;
  const problems = (list: CheckProblem[]) =>
    html`<ul>${list.map((p) => html`<li><code>${p.path}${p.line ? `:${p.line}` : ''}</code> <span class="pre">${clip(p.message, 2000)}</span></li>`)}</ul>`;
  return html`<section id="job-checks"><h2>Checks ${badge(run.status)}</h2>
    <ul class="commits">${run.results.map(
      (result) => html`<li>${badge(result.status)} <strong>${result.name}</strong>: ${result.message}
        ${result.problems.length ? problems(result.problems) : ''}
        ${result.notes?.length ? html`<p class="hint">Already on the base branch, so not this job's to fix (${result.notes.length}):</p>${problems(result.notes)}` : ''}</li>`,
    )}</ul><p class="hint">Ran ${time(run.ranAt)}.</p></section>`;
}
