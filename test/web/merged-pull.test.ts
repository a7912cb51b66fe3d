import { beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { createLocalHost } from '../../src/hosts/index.js';
import { testDialects, testJobInput } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';
import { git, pushCommit, useRepository } from '../support/worker.js';

// A local pull request keeps showing what it changed once merged or closed, and the jobs list says
// which of open, merged and closed each job's pull request is.
describe.each(testDialects())('merged and closed local pull requests on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  let project: Project;

  const repository = useRepository({ name: 'merged-pull', bare: true });
  beforeAll(async () => {
    project = await t.store.projects.create({ name: 'Docs', repository: repository.bare });
  });

  /** A job whose branch adds `file`, and its pull request opened through the local host. */
  const openPull = async (branch: string, file: string) => {
    pushCommit(repository, branch, { [file]: `Text of ${file}\n` }, `Add ${file}`);
    const job = await t.store.jobs.create(testJobInput(project, `Add ${file}`));
    const host = createLocalHost({ pullRequests: t.store.pullRequests, publicUrl: 'http://127.0.0.1' });
    const link = await host.openOrUpdatePullRequest({
      project,
      job,
      branch,
      base: 'main',
      title: `Add ${file}`,
      body: '',
      draft: false,
      headSha: git(repository.bare, 'rev-parse', branch),
    });
    // As a run that published would leave it.
    await t.database.db.kysely
      .updateTable('jobs')
      .set({ status: 'completed', phase: null, pr_link: link.url })
      .where('id', '=', job.id)
      .execute();
    return { job, number: link.number };
  };

  it('shows the commits and diff of a merged pull request, and of a closed one', async () => {
    const merged = await openPull('agentjobs/merged', 'merged.md');
    const closed = await openPull('agentjobs/closed', 'closed.md');
    const pulls = `/ui/projects/${project.id}/pulls`;
    await browser.get(`${pulls}/${merged.number}`); // for its form's CSRF token
    expect((await browser.post(`${pulls}/${merged.number}/merge`)).status).toBe(303);
    expect((await browser.post(`${pulls}/${closed.number}/close`)).status).toBe(303);
    expect(git(repository.bare, 'show', 'main:merged.md')).toBe('Text of merged.md');

    const mergedPage = (await browser.get(`${pulls}/${merged.number}`)).body;
    expect(mergedPage).toContain('badge merged');
    expect(mergedPage).toContain('Commits (1)');
    expect(mergedPage).toContain('Add merged.md');
    expect(mergedPage).toContain('+Text of merged.md');
    const closedPage = (await browser.get(`${pulls}/${closed.number}`)).body;
    expect(closedPage).toContain('badge closed');
    expect(closedPage).toContain('Commits (1)');
    expect(closedPage).toContain('+Text of closed.md');
  });

  it('says in the jobs list whether each pull request is open, merged or closed', async () => {
    const open = await openPull('agentjobs/still-open', 'open.md');
    const merged = await openPull('agentjobs/merged-too', 'merged-too.md');
    const closed = await openPull('agentjobs/closed-too', 'closed-too.md');
    const pulls = `/ui/projects/${project.id}/pulls`;
    await browser.get(`${pulls}/${merged.number}`);
    expect((await browser.post(`${pulls}/${merged.number}/merge`)).status).toBe(303);
    expect((await browser.post(`${pulls}/${closed.number}/close`)).status).toBe(303);
    for (const list of [`/ui/projects/${project.id}/jobs`, `/ui/projects/${project.id}/jobs/rows`]) {
      const rows = (await browser.get(list)).body;
      const stateOf = (jobId: string) =>
        new RegExp(
          `href="/ui/projects/${project.id}/jobs/${jobId}"[\\s\\S]*?pull request</a> <span class="badge (\\w+)">`,
        ).exec(rows)?.[1];
      expect([stateOf(open.job.id), stateOf(merged.job.id), stateOf(closed.job.id)]).toEqual([
        'open',
        'merged',
        'closed',
      ]);
    }
  });
});
