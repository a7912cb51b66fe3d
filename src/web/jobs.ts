import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { formatUsd, JOB_STATUSES, type Job } from '../domain/job.js';
import type { Project } from '../domain/project.js';
import type { PullRequestState } from '../domain/pull-request.js';
import { closedSignal, streamJobEvents } from '../http/event-stream.js';
import type { Store } from '../store/store.js';
import { REFRESHES, renderEvent } from './events.js';
import { clip, fieldHint, type Html, html, safeHref, time } from './html.js';
import { jobSummary, statusBadge } from './job-summary.js';
import { type DashboardConfig, type DashboardOptions, SESSION_COOKIE, sendPage } from './layout.js';
import {
  type DashboardJobDeps,
  type NewJobState,
  newJobForm,
  readNewJob,
  sendFollowUp,
  startJob,
} from './new-job.js';
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

/** What the job pages need: the job operations' needs and the dashboard's configuration. */
type JobPageDeps = DashboardJobDeps & { store: Store; config: DashboardConfig };

const listUrl = (project: Project, query: { status?: string; before?: string }, rows = false) => {
  const params = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => Boolean(e[1])),
  );
  return `/ui/projects/${project.id}/jobs${rows ? '/rows' : ''}${params.size ? `?${params}` : ''}`;
};

// Only the local host's pull requests are recorded here; another host's state is on the host.
const pullStatesOf = (store: Store, project: Project, jobs: Job[]) =>
  project.host === 'local'
    ? store.pullRequests.statesOfJobs(
        project.id,
        jobs.filter((job) => job.prLink).map((job) => job.id),
      )
    : Promise.resolve(new Map<string, PullRequestState>());

/** The project's jobs, newest first, with the form that starts one. */
async function listPage(
  { store, config }: JobPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  form: NewJobState = {},
  status = 200,
) {
  const project = await projectOf(store, request);
  const query = listQuery.parse(request.query);
  const { jobs, more } = await store.jobs.list(project.id, { limit: PAGE_SIZE, ...query });
  const pullStates = await pullStatesOf(store, project, jobs);
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
}

/** A job's page: its summary (job-summary.ts: status, prompts and their runs' summaries), activity, and the follow-up form. */
async function jobPage(
  { store, config }: JobPageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  state: { error?: string; followUp?: string; status?: number } = {},
) {
  const { project, job } = await jobOf(store, request);
  const events = await store.events.latest(job.id, MAX_EVENTS);
  const lastSeq = events.at(-1)?.seq ?? 0;
  const base = `/ui/projects/${project.id}/jobs/${job.id}`;
  const live = job.status === 'active';
  const body = await jobSummary({ store, dataDir: config.dataDir }, project, job);
  return sendPage(
    request,
    reply,
    job.title ?? 'Job',
    (csrf) => html`${projectHeader(project, 'jobs')}
    <h2 class="meta">Job <code>${job.id}</code></h2>
    <div id="job-summary"${live ? html` data-events-url="${base}/stream?after=${lastSeq}" data-summary-url="${base}/summary"` : ''}>${body}</div>
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
}

/** The live activity: each event as a rendered list item; `end` once the job is no longer active. */
async function streamActivity(
  store: Store,
  request: FastifyRequest<{ Querystring: { after?: string } }>,
  reply: FastifyReply,
) {
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
}

export const jobPages: FastifyPluginAsync<DashboardOptions> = async (app, { config, store, lifecycle }) => {
  const deps = { store, config, log: app.log, lifecycle };
  app.get('/projects/:projectId/jobs', { schema: { hide: true } }, (request, reply) =>
    listPage(deps, request, reply),
  );

  // The form on the list starts a job through the API's own operation, then opens its live page.
  app.post('/projects/:projectId/jobs', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const values = readNewJob(request.body);
    const outcome = await startJob(deps, project, values);
    if ('jobId' in outcome) return reply.redirect(`/ui/projects/${project.id}/jobs/${outcome.jobId}`, 303);
    reply.headers(outcome.headers);
    return listPage(deps, request, reply, { values, errors: outcome.errors }, outcome.status);
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
      .send(jobRows(project, jobs, await pullStatesOf(store, project, jobs)).value);
  });

  app.get('/projects/:projectId/jobs/:jobId', { schema: { hide: true } }, (request, reply) =>
    jobPage(deps, request, reply),
  );

  app.get('/projects/:projectId/jobs/:jobId/summary', { schema: { hide: true } }, async (request, reply) => {
    const { project, job } = await jobOf(store, request);
    const body = await jobSummary({ store, dataDir: config.dataDir }, project, job);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body.value);
  });

  app.get<{ Querystring: { after?: string } }>(
    '/projects/:projectId/jobs/:jobId/stream',
    { schema: { hide: true } },
    (request, reply) => streamActivity(store, request, reply),
  );

  app.post(
    '/projects/:projectId/jobs/:jobId/follow-up',
    { schema: { hide: true } },
    async (request, reply) => {
      const { project, job } = await jobOf(store, request);
      const prompt = String((request.body as { prompt?: unknown } | undefined)?.prompt ?? '').trim();
      if (!prompt) return jobPage(deps, request, reply, { error: 'Write the follow-up first.' });
      if (prompt.length > config.limits.maxPromptChars)
        return jobPage(deps, request, reply, {
          error: `A follow-up holds at most ${config.limits.maxPromptChars} characters.`,
          followUp: prompt,
        });
      // The API's follow-up operation, so a follow-up spends the hourly budget as an API client's does.
      const outcome = await sendFollowUp(deps, project.id, job.id, prompt);
      if (outcome.error) {
        reply.headers(outcome.headers);
        return jobPage(deps, request, reply, {
          error: outcome.error,
          followUp: prompt,
          status: outcome.status,
        });
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
