import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CheckProblem, CheckRun } from '../domain/checks.js';
import { AppError } from '../domain/errors.js';
import type { JobEvent } from '../domain/events.js';
import { formatUsd, JOB_STATUSES, type Job } from '../domain/job.js';
import { FAILURE_ADVICE } from '../domain/job-failures.js';
import { DEMO_MODEL_ID } from '../domain/model-id.js';
import type { Project } from '../domain/project.js';
import type { PullRequestState } from '../domain/pull-request.js';
import { readChanges } from '../git/diff.js';
import { closedSignal, streamJobEvents } from '../http/event-stream.js';
import type { Store } from '../store/store.js';
import { renderDiff } from './diff.js';
import { REFRESHES, renderEvent } from './events.js';
import { clip, fieldHint, type Html, html, safeHref, time } from './html.js';
import { type DashboardOptions, SESSION_COOKIE, sendPage } from './layout.js';
import { type NewJobState, newJobForm, readNewJob, sendFollowUp, startJob } from './new-job.js';
import { projectHeader, projectOf } from './project-header.js';

const PAGE_SIZE = 50;
/** The job page shows the newest this many events; the API pages through all of them. */
const MAX_EVENTS = 2000;

const listQuery = z.object({
  status: z.enum(JOB_STATUSES).optional().catch(undefined),
  before: z
    .string()
    .regex(/^[\w-]{1,100}$/)
    .optional()
    .catch(undefined),
});

const statusBadge = (job: Job) =>
  html`<span class="badge ${job.status}">${job.status}</span>${job.phase ? html` <span class="hint">${job.phase}</span>` : ''}`;

/** The link to a job's pull request, with its state where this server knows it (the local host's). */
const pullRequestLink = (job: Job, state: PullRequestState | undefined) =>
  job.prLink
    ? html`<a href="${safeHref(job.prLink)}">pull request</a>${state ? html` <span class="badge ${state}">${state}</span>` : ''}`
    : '';

function jobRows(project: Project, jobs: Job[], pullStates: Map<string, PullRequestState>): Html {
  if (jobs.length === 0) return html`<tr><td colspan="5">No jobs here.</td></tr>`;
  return html`${jobs.map(
    (job) => html`<tr><td>${statusBadge(job)}</td>
      <td class="prompt"><a href="/ui/projects/${project.id}/jobs/${job.id}">${job.title ?? clip(job.prompt, 140)}</a></td>
      <td class="optional">${time(job.createdAt)}</td>
      <td class="optional">${formatUsd(job.usage.costUsd)}</td>
      <td>${pullRequestLink(job, pullStates.get(job.id))}</td></tr>`,
  )}`;
}

async function jobOf(store: Store, request: FastifyRequest): Promise<{ project: Project; job: Job }> {
  const project = await projectOf(store, request);
  const { jobId } = request.params as { jobId: string };
  const job = /^[\w-]{1,100}$/.test(jobId) ? await store.jobs.get(project.id, jobId) : undefined;
  if (!job) throw new AppError('not_found', 'There is no such job in this project.');
  return { project, job };
}

/** The diff of a local project's job: its branch against the base, read from the repository. */
async function jobDiff(store: Store, project: Project, job: Job, events: JobEvent[]): Promise<Html> {
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
  try {
    return renderDiff(await readChanges(project.repository, base, head));
  } catch {
    return html`<div class="pad">The diff cannot be read from the repository.</div>`;
  }
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

/** What changes as the job runs: status, result, plan and diff. The live page swaps it in. */
async function summary(store: Store, project: Project, job: Job): Promise<Html> {
  // Read apart from the activity, so a job with more events than the page shows still has its
  // latest plan and its whole commit range.
  const events = await store.events.ofTypes(job.id, ['plan', 'commit']);
  const plan = events.findLast((e) => e.type === 'plan');
  const items = plan?.data.items ?? [];
  return html`<section><h2>Status</h2><dl class="facts">
      <dt>Status</dt><dd id="job-status">${statusBadge(job)}</dd>
      <dt>Pull request</dt><dd id="job-pr">${job.prLink ? html`<a href="${safeHref(job.prLink)}">${job.prLink}</a>` : noPullRequest(project, job)}</dd>
      ${job.title ? html`<dt>Title</dt><dd>${job.title}</dd>` : ''}
      ${job.summary ? html`<dt>Summary</dt><dd class="pre">${job.summary}</dd>` : ''}
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
            return html`<li class="${status}">${item.content}${status === 'in_progress' ? html` <span class="badge active">now</span>` : ''}</li>`;
          })}</ul></section>`
        : ''
    }
    ${job.checks ? checksSection(job.checks) : ''}
    <section><h2>Changes</h2>${await jobDiff(store, project, job, events)}</section>`;
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

export const jobPages: FastifyPluginAsync<DashboardOptions> = async (app, { config, store, lifecycle }) => {
  const deps = { store, config, log: app.log, lifecycle };
  const listUrl = (project: Project, query: { status?: string; before?: string }, rows = false) => {
    const params = new URLSearchParams(
      Object.entries(query).filter((e): e is [string, string] => Boolean(e[1])),
    );
    return `/ui/projects/${project.id}/jobs${rows ? '/rows' : ''}${params.size ? `?${params}` : ''}`;
  };

  // Only the local host's pull requests are recorded here; another host's state is on the host.
  const pullStatesOf = (project: Project, jobs: Job[]) =>
    project.host === 'local'
      ? store.pullRequests.statesOfJobs(
          project.id,
          jobs.filter((job) => job.prLink).map((job) => job.id),
        )
      : Promise.resolve(new Map<string, PullRequestState>());

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: NewJobState = {},
    status = 200,
  ) => {
    const project = await projectOf(store, request);
    const query = listQuery.parse(request.query);
    const { jobs, more } = await store.jobs.list(project.id, { limit: PAGE_SIZE, ...query });
    const pullStates = await pullStatesOf(project, jobs);
    const last = jobs.at(-1);
    const filter = (status: string | undefined, label: string) =>
      html`<a href="${listUrl(project, { status })}"${query.status === status ? html` aria-current="page"` : ''}>${label}</a>`;
    const formOptions = { maxPromptChars: config.limits.maxPromptChars, defaultModel: config.defaultModel };
    return sendPage(
      request,
      reply,
      `${project.name} jobs`,
      (csrf) => html`${projectHeader(project, 'jobs')}
      ${newJobForm(project, formOptions, csrf, form)}
      ${
        jobs.length === 0 && !query.status && !query.before
          ? html`<div class="card pad" id="no-jobs">No jobs yet. Start the first one with the form above. Programs start jobs through the API: make a key on the <a href="/ui/projects/${project.id}/keys">API keys</a> tab and send <code>POST /v2/agent/${project.id}/job</code>.</div>`
          : html`<nav class="filters" aria-label="Filter by status">${filter(undefined, 'All')}${JOB_STATUSES.map((s) => filter(s, s))}</nav>
      <div class="table-wrap"><table><thead><tr><th>Status</th><th>Job</th><th class="optional">Created</th><th class="optional">Cost</th><th>Pull request</th></tr></thead>
        <tbody data-rows-url="${listUrl(project, query, true)}">${jobRows(project, jobs, pullStates)}</tbody></table></div>
      <div class="pager">${query.before ? html`<a href="${listUrl(project, { status: query.status })}">Newest</a>` : ''}${more && last ? html`<a href="${listUrl(project, { status: query.status, before: last.id })}">Older</a>` : ''}</div>`
      }`,
      { status },
    );
  };

  app.get('/projects/:projectId/jobs', { schema: { hide: true } }, (request, reply) =>
    listPage(request, reply),
  );

  // The form on the list starts a job through the API's own operation, then opens its live page.
  app.post('/projects/:projectId/jobs', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const values = readNewJob(request.body);
    const outcome = await startJob(deps, project, values);
    if ('jobId' in outcome) return reply.redirect(`/ui/projects/${project.id}/jobs/${outcome.jobId}`, 303);
    reply.headers(outcome.headers);
    return listPage(request, reply, { values, errors: outcome.errors }, outcome.status);
  });

  // The rows alone, for the list's script to refresh while jobs are active.
  app.get('/projects/:projectId/jobs/rows', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const { jobs } = await store.jobs.list(project.id, {
      limit: PAGE_SIZE,
      ...listQuery.parse(request.query),
    });
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(jobRows(project, jobs, await pullStatesOf(project, jobs)).value);
  });

  const jobPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: { error?: string; followUp?: string; status?: number } = {},
  ) => {
    const { project, job } = await jobOf(store, request);
    const [events, messages] = await Promise.all([
      store.events.latest(job.id, MAX_EVENTS),
      store.events.ofTypes(job.id, ['message']),
    ]);
    const lastSeq = events.at(-1)?.seq ?? 0;
    const followUps = messages.filter((e) => e.data.role === 'user');
    const base = `/ui/projects/${project.id}/jobs/${job.id}`;
    const live = job.status === 'active';
    const body = await summary(store, project, job);
    return sendPage(
      request,
      reply,
      job.title ?? 'Job',
      (csrf) => html`${projectHeader(project, 'jobs')}
      <h2 class="meta">Job <code>${job.id}</code></h2>
      <div id="job-summary"${live ? html` data-events-url="${base}/stream?after=${lastSeq}" data-summary-url="${base}/summary"` : ''}>${body}</div>
      <section><h2>Prompt${followUps.length ? ' and follow-ups' : ''}</h2>
        <div class="body">${job.prompt}</div>
        ${followUps.map((e) => html`<div class="body"><span class="hint">Follow-up, ${time(e.at)}</span>\n${e.data.text}</div>`)}</section>
      <section><h2>Activity</h2>${(events[0]?.seq ?? 1) > 1 ? html`<div class="pad hint">The ${(events[0]?.seq ?? 1) - 1} oldest events are not shown; <code>GET /v2/agent/${project.id}/job/${job.id}/events</code> has them all.</div>` : ''}<ol class="activity" id="activity" aria-live="polite">${events.map(renderEvent)}</ol>
        ${events.length === 0 ? html`<div class="pad" id="activity-empty">Nothing yet.</div>` : ''}</section>
      ${
        job.status === 'archived'
          ? html`<div class="card pad">This job is archived: it is final.</div>`
          : html`<section><h2>Follow up</h2><form class="stack" method="post" action="${base}/follow-up">
            <input type="hidden" name="_csrf" value="${csrf}">
            <div><label for="follow-up">Another instruction for the agent</label>
              <textarea id="follow-up" name="prompt" required maxlength="${config.limits.maxPromptChars}" aria-describedby="h-follow-up"${state.error ? html` aria-invalid="true"` : ''}>${state.followUp ?? ''}</textarea>
              ${fieldHint('h-follow-up', state.error, 'It continues on the same branch and updates the same pull request.')}</div>
            <div class="actions"><button class="primary" type="submit">Send follow-up</button></div></form></section>
          <form method="post" action="${base}/archive"><input type="hidden" name="_csrf" value="${csrf}">
            <details class="confirm"><summary class="button" role="button">Archive</summary>
              <p>Archiving is final: the agent stops and the job takes no more follow-ups.</p>
              <button class="danger" type="submit">Yes, archive this job</button></details></form>`
      }`,
      state.error ? { status: state.status ?? 400, flash: { kind: 'error', text: state.error } } : {},
    );
  };

  app.get('/projects/:projectId/jobs/:jobId', { schema: { hide: true } }, (request, reply) =>
    jobPage(request, reply),
  );

  app.get('/projects/:projectId/jobs/:jobId/summary', { schema: { hide: true } }, async (request, reply) => {
    const { project, job } = await jobOf(store, request);
    const body = await summary(store, project, job);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body.value);
  });

  // The live activity: each event as a rendered list item; `end` once the job is no longer active.
  app.get<{ Querystring: { after?: string } }>(
    '/projects/:projectId/jobs/:jobId/stream',
    { schema: { hide: true } },
    async (request, reply) => {
      const { project, job } = await jobOf(store, request);
      const lastEventId = request.headers['last-event-id'];
      const from = typeof lastEventId === 'string' ? lastEventId : (request.query.after ?? '0');
      const token = request.cookies[SESSION_COOKIE];
      return streamJobEvents(reply, {
        store,
        projectId: project.id,
        jobId: job.id,
        after: /^\d{1,12}$/.test(from) ? Number(from) : 0,
        keepAliveMs: 15_000,
        signal: closedSignal(reply),
        format: (event) =>
          `id: ${event.seq}\ndata: ${JSON.stringify({ html: renderEvent(event).value, refresh: REFRESHES.has(event.type) })}\n\n`,
        finalMessage: 'event: end\ndata: {}\n\n',
        // Signing out, a new password or the session's end also ends the streams it opened.
        stillAllowed: async () => {
          const found = token ? await store.admin.findSession(token) : undefined;
          return found !== undefined && !found.expired;
        },
      });
    },
  );

  app.post(
    '/projects/:projectId/jobs/:jobId/follow-up',
    { schema: { hide: true } },
    async (request, reply) => {
      const { project, job } = await jobOf(store, request);
      const prompt = String((request.body as { prompt?: unknown } | undefined)?.prompt ?? '').trim();
      if (!prompt) return jobPage(request, reply, { error: 'Write the follow-up first.' });
      if (prompt.length > config.limits.maxPromptChars)
        return jobPage(request, reply, {
          error: `A follow-up holds at most ${config.limits.maxPromptChars} characters.`,
          followUp: prompt,
        });
      // The API's follow-up operation, so a follow-up spends the hourly budget as an API client's does.
      const outcome = await sendFollowUp(deps, project.id, job.id, prompt);
      if (outcome.error) {
        reply.headers(outcome.headers);
        return jobPage(request, reply, { error: outcome.error, followUp: prompt, status: outcome.status });
      }
      return reply.redirect(`/ui/projects/${project.id}/jobs/${job.id}`, 303);
    },
  );

  app.post('/projects/:projectId/jobs/:jobId/archive', { schema: { hide: true } }, async (request, reply) => {
    const { project, job } = await jobOf(store, request);
    await store.jobs.archive(project.id, job.id);
    return reply.redirect(`/ui/projects/${project.id}/jobs/${job.id}`, 303);
  });
};
