import { beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { createLocalHost } from '../../src/hosts/index.js';
import { testDialects, testJobInput } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';
import { git, pushCommit, useRepository } from '../support/worker.js';

// A local pull request that conflicts with its base (issue 29): the page names the files and the
// next step, a follow-up to the job, instead of only saying it cannot be merged.
describe.each(testDialects())('a conflicting local pull request on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  let project: Project;

  const repository = useRepository({ name: 'conflict-pull', bare: true });
  beforeAll(async () => {
    project = await t.store.projects.create({ name: 'Docs', repository: repository.bare });
  });

  /** Commits `files` on `branch`, made from main, and pushes it. */
  const commitOn = (branch: string, files: Record<string, string>) =>
    pushCommit(repository, branch, files, `Change ${branch}`);

  it('names the conflicting files and says to send a follow-up to the job', async () => {
    commitOn('agentjobs/reword', { 'README.md': '# Docs\n\nWelcome, says the job.\n', 'new.md': 'New\n' });
    const job = await t.store.jobs.create(testJobInput(project, 'Reword the welcome'));
    const host = createLocalHost({ pullRequests: t.store.pullRequests, publicUrl: 'http://127.0.0.1' });
    const link = await host.openOrUpdatePullRequest({
      project,
      job,
      branch: 'agentjobs/reword',
      base: 'main',
      title: 'Reword the welcome',
      body: '',
      draft: false,
      headSha: git(repository.bare, 'rev-parse', 'agentjobs/reword'),
    });
    const pulls = `/ui/projects/${project.id}/pulls`;
    const clean = (await browser.get(`${pulls}/${link.number}`)).body;
    expect(clean).not.toContain('conflicting-files');
    expect(clean).toContain(`action="${pulls}/${link.number}/merge"`);
    commitOn('main', { 'README.md': '# Docs\n\nWelcome, says main.\n' });
    const mainBefore = git(repository.bare, 'rev-parse', 'main');

    // The page says so before anyone tries to merge.
    const page = (await browser.get(`${pulls}/${link.number}`)).body;
    expect(page).toContain('<ul id="conflicting-files"><li><code>README.md</code></li></ul>');
    expect(page).toContain('send a follow-up to the job</a>: the agent will merge main and resolve them');
    // Merge is not offered on it (issue 37); the page says why and what to do instead.
    expect(page).not.toContain(`action="${pulls}/${link.number}/merge"`);
    expect(page).toMatch(
      /id="merge-unavailable">Not offered for merging: it conflicts with main.*resolve the conflict by hand/,
    );
    const refused = await browser.post(`${pulls}/${link.number}/merge`);
    expect(refused.status).toBe(409);
    const files = /<ul id="conflicting-files">([\s\S]*?)<\/ul>/.exec(refused.body)?.[1] ?? '';
    expect([...files.matchAll(/<code>([^<]+)<\/code>/g)].map((match) => match[1])).toEqual(['README.md']);
    expect(refused.body).toContain(
      `<a href="/ui/projects/${project.id}/jobs/${job.id}">send a follow-up to the job</a>`,
    );
    expect(refused.body).toContain('the agent will merge main and resolve them');
    // Nothing changed: main and the pull request are as they were.
    expect(git(repository.bare, 'rev-parse', 'main')).toBe(mainBefore);
    expect(await t.store.pullRequests.get(project.id, link.number)).toMatchObject({ state: 'open' });
  });

  it('offers no merge on a draft and says it is one because checks failed (issue 37)', async () => {
    commitOn('agentjobs/draft', { 'draft.md': 'Draft\n' });
    const job = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Add a draft',
      model: 'anthropic:claude-sonnet-4-5',
      baseRef: 'main',
      repository: repository.bare,
      draft: false,
    });
    const host = createLocalHost({ pullRequests: t.store.pullRequests, publicUrl: 'http://127.0.0.1' });
    const link = await host.openOrUpdatePullRequest({
      project,
      job,
      branch: 'agentjobs/draft',
      base: 'main',
      title: 'Add a draft',
      body: 'Checks failed: tests.',
      draft: true,
      headSha: git(repository.bare, 'rev-parse', 'agentjobs/draft'),
    });
    const url = `/ui/projects/${project.id}/pulls/${link.number}`;
    const page = (await browser.get(url)).body;
    expect(page).not.toContain(`action="${url}/merge"`);
    expect(page).toContain(`action="${url}/close"`);
    expect(page).toMatch(
      /id="merge-unavailable">Not offered for merging: it is a draft.*checks failed \(the description says which\)/,
    );
  });
});
