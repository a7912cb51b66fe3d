import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { PullRequest } from '../domain/pull-request.js';
import { type Changes, readChanges } from '../git/diff.js';
import { localMergeConflicts } from '../hosts/index.js';
import {
  closePullRequest,
  findPullRequest,
  listPullRequests,
  MergeRefused,
  mergePullRequest,
} from '../operations/merges.js';
import type { Store } from '../store/store.js';
import { renderDiff } from './diff.js';
import { type Html, html, time } from './html.js';
import { type DashboardOptions, sendPage } from './layout.js';
import { markdownHtml } from './markdown.js';
import { projectHeader, projectOf } from './project-header.js';

const PAGE_SIZE = 50;

/** The pull request the address names, as the merge operations find it (a merge by hand shows). */
async function pullRequestOf(
  store: Store,
  request: FastifyRequest,
): Promise<{ project: Project; pull: PullRequest }> {
  const project = await projectOf(store, request);
  const { number } = request.params as { number: string };
  const missing = new AppError('not_found', `There is no pull request #${number} in this project.`);
  if (!/^\d{1,9}$/.test(number)) throw missing;
  try {
    return await findPullRequest(store, project.id, { number: Number(number) });
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw missing;
    throw error;
  }
}

const NO_CHANGES: Changes = { commits: [], diff: '', truncated: false };

/**
 * What a pull request changes. An open one is compared with its base branch as it is now; a merged
 * or closed one from where its changes started (its `baseSha`), since once merged the base holds it
 * all. A merged one recorded before that was kept shows none.
 */
async function changesOf(project: Project, pull: PullRequest): Promise<Changes> {
  const head = pull.headSha ?? `refs/heads/${pull.headBranch}`;
  const base = pull.state === 'open' ? `refs/heads/${pull.baseBranch}` : pull.baseSha;
  if (base === null) return NO_CHANGES;
  return readChanges(project.repository, base, head).catch(() => NO_CHANGES);
}

/** What a conflicting pull request's page says: the files, and the next step (a follow-up to its job). */
function conflictHelp(project: Project, pull: PullRequest, files: string[]) {
  const job = pull.jobId ? `/ui/projects/${project.id}/jobs/${pull.jobId}` : null;
  return html`<p>Pull request #${pull.number} conflicts with ${pull.baseBranch} in these files, so it cannot be merged automatically:</p>
        <ul id="conflicting-files">${files.map((file) => html`<li><code>${file}</code></li>`)}</ul>
        <p id="next-step">${
          job
            ? html`Next step: <a href="${job}">send a follow-up to the job</a>: the agent will merge ${pull.baseBranch} and resolve them, and this pull request is updated.`
            : html`Next step: merge ${pull.baseBranch} into ${pull.headBranch} and resolve them, then merge again.`
        }</p>`;
}

/**
 * Why an open pull request is not offered for merging, or null when it can be merged: one that
 * conflicts with its base (the page's notice names the files and the next step), or a draft, which
 * a job opens when its checks failed under the `draft` policy or when it was asked for one.
 */
function mergeBlocker(pull: PullRequest, conflicts: string[]): Html | null {
  if (conflicts.length > 0)
    return html`Not offered for merging: it conflicts with ${pull.baseBranch} (see above). Send a follow-up to the job, or resolve the conflict by hand.`;
  if (pull.draft)
    return html`Not offered for merging: it is a draft. A job opens one when its checks failed (the description says which) or when it was asked for a draft; send a follow-up to the job to fix them.`;
  return null;
}

/** An open pull request's buttons: Merge only when it can be merged (else why not), and Close. */
function openActions(project: Project, pull: PullRequest, conflicts: string[], csrf: string): Html {
  const action = `/ui/projects/${project.id}/pulls/${pull.number}`;
  const blocker = mergeBlocker(pull, conflicts);
  return html`<div class="actions">
      ${blocker ? html`<p class="hint" id="merge-unavailable">${blocker}</p>` : html`<form method="post" action="${action}/merge"><input type="hidden" name="_csrf" value="${csrf}"><button class="primary" type="submit">Merge into ${pull.baseBranch}</button></form>`}
      <form method="post" action="${action}/close"><input type="hidden" name="_csrf" value="${csrf}"><button class="danger" type="submit">Close</button></form></div>`;
}

const NOTICES: Record<string, { kind: 'ok' | 'error'; text: string }> = {
  merged: { kind: 'ok', text: 'Merged.' },
  closed: { kind: 'ok', text: 'Closed without merging.' },
};

const hide = { schema: { hide: true } };

/** The list of a project's pull requests, newest first, a page at a time. */
async function listPage(store: Store, request: FastifyRequest, reply: FastifyReply) {
  const project = await projectOf(store, request);
  const { before: beforeText } = request.query as { before?: string };
  const before = /^\d{1,9}$/.test(beforeText ?? '') ? Number(beforeText) : undefined;
  const { pullRequests, more } = await listPullRequests(store, project.id, { limit: PAGE_SIZE, before });
  const last = pullRequests.at(-1);
  return sendPage(
    request,
    reply,
    `${project.name} pull requests`,
    () => html`${projectHeader(project, 'pulls')}
      ${
        pullRequests.length === 0
          ? html`<div class="card pad">No pull requests yet. A job that changes files opens one here.</div>`
          : html`<div class="table-wrap"><table><thead><tr><th>#</th><th>Title</th><th>State</th><th class="optional">Branch</th><th class="optional">Updated</th></tr></thead><tbody>
          ${pullRequests.map((p) => html`<tr><td>${p.number}</td><td><a href="/ui/projects/${project.id}/pulls/${p.number}">${p.title}</a></td><td><span class="badge ${p.state}">${p.state}</span></td><td class="optional">${p.headBranch}</td><td class="optional">${time(p.updatedAt)}</td></tr>`)}
          </tbody></table></div>`
      }
      <div class="pager">${before ? html`<a href="/ui/projects/${project.id}/pulls">Newest</a>` : ''}${more && last ? html`<a href="/ui/projects/${project.id}/pulls?before=${last.number}">Older</a>` : ''}</div>`,
  );
}

/** One pull request: its description, commits and diff, and the Merge and Close buttons while open. */
async function pullRequestPage(store: Store, request: FastifyRequest, reply: FastifyReply) {
  const { project, pull } = await pullRequestOf(store, request);
  const [changes, conflicts] = await Promise.all([
    changesOf(project, pull),
    localMergeConflicts(project, pull),
  ]);
  const { notice: noticeName } = request.query as { notice?: string };
  const notice = noticeName ? NOTICES[noticeName] : undefined;
  const body = pull.body.trim() ? await markdownHtml(pull.body) : null;
  return sendPage(
    request,
    reply,
    `${pull.title} #${pull.number}`,
    (csrf) => html`${projectHeader(project, 'pulls')}
      <h1>${pull.title} <span class="meta">#${pull.number}</span></h1>
      <div class="meta"><span class="badge ${pull.state}" id="pull-state">${pull.state}</span>
        ${pull.headBranch} → ${pull.baseBranch}${pull.draft ? ' · draft' : ''} · opened ${time(pull.createdAt)}
        ${pull.jobId ? html` · <a href="/ui/projects/${project.id}/jobs/${pull.jobId}">the job</a>` : ''}</div>
      ${conflicts.length > 0 ? html`<div class="flash error">${conflictHelp(project, pull, conflicts)}</div>` : ''}
      ${pull.state === 'open' ? openActions(project, pull, conflicts, csrf) : ''}
      <section><h2>Description</h2>${body ? html`<div class="markdown" id="pull-body">${body}</div>` : html`<div class="pad">No description.</div>`}</section>
      <section><h2>Commits (${changes.commits.length})</h2>
        <ul class="commits">${changes.commits.map((c) => html`<li><code>${c.sha}</code> ${c.subject}</li>`)}</ul></section>
      ${pull.state === 'merged' ? html`<div class="flash ok">Merged into ${pull.baseBranch} ${time(pull.mergedAt)}.</div>` : ''}
      <section><h2>Changes</h2>${renderDiff(changes)}</section>`,
    { flash: notice ?? null },
  );
}

/** Merges through the merge operation (`operations/merges.ts`); a refusal is shown with its reason. */
async function merge(options: DashboardOptions, request: FastifyRequest, reply: FastifyReply) {
  const { config, store } = options;
  const { project, pull } = await pullRequestOf(store, request);
  const page = `/ui/projects/${project.id}/pulls/${pull.number}`;
  try {
    await mergePullRequest(
      { store, author: { name: config.worker.gitAuthorName, email: config.worker.gitAuthorEmail } },
      project.id,
      { number: pull.number },
    );
  } catch (error) {
    if (!(error instanceof MergeRefused)) throw error;
    // Merged or closed meanwhile (with git by hand, or in another tab): the page says which.
    if (error.refusal === 'not_open') return reply.redirect(page, 303);
    // A conflict, or uncommitted changes in the working copy in the way: the page says why, and nothing changed.
    return sendPage(
      request,
      reply,
      'Not merged',
      () => html`${projectHeader(project, 'pulls')}<h1>Not merged</h1>
        ${error.refusal === 'conflict' ? conflictHelp(project, pull, error.files) : html`<p>${error.message}</p>`}
        <p><a href="${page}">Back to the pull request</a></p>`,
      { status: 409 },
    );
  }
  request.log.info({ projectId: project.id, number: pull.number }, 'pull request merged in the dashboard');
  return reply.redirect(`${page}?notice=merged`, 303);
}

async function close(store: Store, request: FastifyRequest, reply: FastifyReply) {
  const { project, pull } = await pullRequestOf(store, request);
  await closePullRequest(store, project.id, { number: pull.number });
  return reply.redirect(`/ui/projects/${project.id}/pulls/${pull.number}?notice=closed`, 303);
}

/**
 * The local code host's pull requests (docs/code-hosts.md): a job's `prLink` points at the page of
 * one; it shows the title, description, commits and diff, and merges into the base or closes.
 */
export const pullRequestPages: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { store } = options;
  app.get('/projects/:projectId/pulls', hide, (request, reply) => listPage(store, request, reply));
  app.get('/projects/:projectId/pulls/:number', hide, (request, reply) =>
    pullRequestPage(store, request, reply),
  );
  app.post('/projects/:projectId/pulls/:number/merge', hide, (request, reply) =>
    merge(options, request, reply),
  );
  app.post('/projects/:projectId/pulls/:number/close', hide, (request, reply) =>
    close(store, request, reply),
  );
};
