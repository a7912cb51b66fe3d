import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { runGit } from '../git/run.js';
import type { PullRequest } from '../store/pull-requests.js';
import type { Store } from '../store/store.js';
import { html, page } from './html.js';

const MAX_DIFF_BYTES = 1024 * 1024;

const params = z.strictObject({
  projectId: z.string().min(1).max(100),
  number: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a pull request number')
    .transform(Number),
});

/** Commits on the head that the base lacks, and the diff, read from the project's repository. */
async function changes(repository: string, pull: PullRequest) {
  const base = `refs/heads/${pull.baseBranch}`;
  const head = pull.headSha ?? `refs/heads/${pull.headBranch}`;
  const [log, diff] = await Promise.all([
    runGit(['log', '--no-color', '--format=%h%x09%s', `${base}..${head}`], {
      cwd: repository,
      timeoutMs: 10_000,
    }),
    runGit(['diff', '--no-color', '--no-ext-diff', `${base}...${head}`], {
      cwd: repository,
      timeoutMs: 10_000,
      maxStdoutBytes: MAX_DIFF_BYTES,
    }),
  ]);
  const commits = log.stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', ...subject] = line.split('\t');
      return { sha, subject: subject.join('\t') };
    });
  return { commits, diff: diff.stdout.toString('utf8'), truncated: diff.truncated };
}

function diffLines(diff: string) {
  return diff.split('\n').map((line) => {
    const kind = line.startsWith('diff --git')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+') && !line.startsWith('+++')
          ? 'add'
          : line.startsWith('-') && !line.startsWith('---')
            ? 'del'
            : '';
    return html`<span class="${kind}">${line || ' '}</span>`;
  });
}

/**
 * The page a local pull request's `prLink` points to: title, description, commits and diff. The
 * dashboard issue adds sign-in, merge and close; this page only shows.
 */
export const pullRequestPages: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get('/ui/projects/:projectId/pulls/:number', { schema: { hide: true } }, async (request, reply) => {
    const parsed = params.safeParse(request.params);
    if (!parsed.success) throw new AppError('not_found', 'No such pull request.');
    const { projectId, number } = parsed.data;
    const project = await store.projects.get(projectId);
    const pull = project && (await store.pullRequests.get(projectId, number));
    if (!project || !pull) throw new AppError('not_found', `No pull request #${number} in this project.`);

    const { commits, diff, truncated } = await changes(project.repository, pull).catch(() => ({
      commits: [],
      diff: '',
      truncated: false,
    }));
    const body = html`
      <h1>${pull.title} <span class="meta">#${pull.number}</span></h1>
      <div class="meta"><span class="badge ${pull.state}">${pull.state}</span>
        ${pull.headBranch} → ${pull.baseBranch} · ${project.name}${pull.draft ? ' · draft' : ''}</div>
      <section><h2>Description</h2><div class="body">${pull.body || 'No description.'}</div></section>
      <section><h2>Commits (${commits.length})</h2>
        <ul class="commits">${commits.map((c) => html`<li><code>${c.sha}</code> ${c.subject}</li>`)}</ul></section>
      <section><h2>Changes</h2>
        <pre class="diff">${diffLines(diff)}</pre>${truncated ? html`<div class="body">The diff is longer than 1 MiB; the rest is not shown.</div>` : ''}</section>`;
    return reply.type('text/html; charset=utf-8').send(page(`${pull.title} #${pull.number}`, body));
  });
};
