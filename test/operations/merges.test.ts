/**
 * The merge operations (`operations/merges.ts`) on every database: a local project's pull request is
 * found by number or by job, merged once, refused when no longer open, and a remote project's
 * pull requests are not merged here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  closePullRequest,
  findPullRequest,
  listPullRequests,
  mergePullRequest,
} from '../../src/operations/merges.js';
import { makeTestJob, testDialects, useTestStore } from '../support/db.js';
import { useRepository } from '../support/worker.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd })
    .toString()
    .trim();
const author = { name: 'Agent', email: 'agent@example.com' };

describe.each(testDialects())('merge operations on %s', (dialect) => {
  const t = useTestStore(dialect);
  const temp = useRepository({ name: 'merge-operations' });

  /** A job's branch with one commit, and its open pull request. */
  async function openPull(projectId: string, file: string) {
    const job = await makeTestJob(t.store, { id: projectId, repository: temp.repo }, `add ${file}`);
    git(temp.repo, 'checkout', '-q', '-b', job.source.ref, 'main');
    fs.writeFileSync(path.join(temp.repo, file), `${file}\n`);
    git(temp.repo, 'add', '-A');
    git(temp.repo, 'commit', '-q', '-m', `add ${file}`);
    const headSha = git(temp.repo, 'rev-parse', 'HEAD');
    git(temp.repo, 'checkout', '-q', 'main');
    const { pullRequest } = await t.store.pullRequests.openOrUpdate({
      projectId,
      jobId: job.id,
      headBranch: job.source.ref,
      baseBranch: 'main',
      title: `Add ${file}`,
      body: '',
      draft: false,
      headSha,
    });
    return { job, pullRequest };
  }

  it('merges by job, once, and closes by number only while open', async () => {
    const project = await t.store.projects.create({ name: 'Docs', repository: temp.repo });
    const { job, pullRequest } = await openPull(project.id, 'faq.md');
    const found = await findPullRequest(t.store, project.id, { jobId: job.id });
    expect(found.pull.number).toBe(pullRequest.number);
    const merged = await mergePullRequest({ store: t.store, author }, project.id, { jobId: job.id });
    expect(merged.pullRequest.state).toBe('merged');
    expect(git(temp.repo, 'rev-parse', 'main')).toBe(merged.sha);
    await expect(
      mergePullRequest({ store: t.store, author }, project.id, { number: pullRequest.number }),
    ).rejects.toMatchObject({ code: 'invalid_transition', refusal: 'not_open' });
    await expect(closePullRequest(t.store, project.id, { number: pullRequest.number })).rejects.toMatchObject(
      {
        refusal: 'not_open',
      },
    );
    const second = await openPull(project.id, 'about.md');
    expect((await closePullRequest(t.store, project.id, { number: second.pullRequest.number })).state).toBe(
      'closed',
    );
    const { pullRequests } = await listPullRequests(t.store, project.id, { limit: 10 });
    expect(pullRequests.map((pull) => pull.state).sort()).toEqual(['closed', 'merged']);
  });

  it('names what it cannot find, and leaves a remote project’s pull requests to its host', async () => {
    const project = await t.store.projects.create({ name: 'Lookups', repository: temp.repo });
    await expect(findPullRequest(t.store, project.id, { number: 999 })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(findPullRequest(t.store, project.id, { jobId: 'nope' })).rejects.toMatchObject({
      code: 'job_not_found',
    });
    await expect(findPullRequest(t.store, 'nope', { number: 1 })).rejects.toMatchObject({
      code: 'project_not_found',
    });
    const remote = await t.store.projects.create({
      name: 'Remote',
      repository: 'https://github.com/acme/docs',
      host: 'github',
    });
    await expect(
      mergePullRequest({ store: t.store, author }, remote.id, { number: 1 }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('merged there') });
  });
});
