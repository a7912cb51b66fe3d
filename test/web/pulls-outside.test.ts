import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';
import { git, useRepository } from '../support/worker.js';

const identity = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

// The dashboard shows what was done to a local pull request's branches with git by hand: merged
// into the base, it shows merged (no Merge button); its branch deleted, it shows closed.
describe.each(testDialects())('local pull requests changed outside agentjobs, on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);

  const repository = useRepository({ name: 'pulls-outside' });

  it('shows a pull request merged with git as merged, and one whose branch was deleted as closed', async () => {
    const project = await t.store.projects.create({ name: 'Working copy', repository: repository.repo });
    const open = async (branch: string) => {
      git(repository.repo, 'checkout', '-q', '-b', branch, 'main');
      fs.writeFileSync(path.join(repository.repo, `${branch.replace(/\W/g, '-')}.md`), `${branch}\n`);
      git(repository.repo, 'add', '-A');
      git(repository.repo, ...identity, 'commit', '-q', '-m', branch);
      git(repository.repo, 'checkout', '-q', 'main');
      const job = await t.store.jobs.create({
        projectId: project.id,
        prompt: branch,
        model: 'anthropic:claude-sonnet-4-5',
        baseRef: 'main',
        repository: repository.repo,
        draft: false,
      });
      return (
        await t.store.pullRequests.openOrUpdate({
          projectId: project.id,
          jobId: job.id,
          headBranch: branch,
          baseBranch: 'main',
          title: `Title ${branch}`,
          body: '',
          draft: false,
          headSha: git(repository.repo, 'rev-parse', branch),
        })
      ).pullRequest;
    };
    const merged = await open('agentjobs/merged-by-hand');
    const deleted = await open('agentjobs/deleted-by-hand');
    const page = (number: number) => browser.get(`/ui/projects/${project.id}/pulls/${number}`);
    expect((await page(merged.number)).body).toContain('Merge into main');

    git(repository.repo, ...identity, 'merge', '-q', '--no-edit', 'agentjobs/merged-by-hand');
    git(repository.repo, 'branch', '-q', '-D', 'agentjobs/deleted-by-hand');

    const mergedPage = (await page(merged.number)).body;
    expect(mergedPage).toContain('badge merged');
    expect(mergedPage).not.toContain('Merge into main');
    const list = (await browser.get(`/ui/projects/${project.id}/pulls`)).body;
    expect(list).toMatch(/Title agentjobs\/deleted-by-hand<\/a><\/td><td><span class="badge closed">/);
    expect((await t.store.pullRequests.get(project.id, deleted.number))?.state).toBe('closed');
    // The Merge button of a page opened before: it says what happened instead of an error.
    const late = await browser.post(`/ui/projects/${project.id}/pulls/${merged.number}/merge`);
    expect(late.status).toBe(303);
  });
});
