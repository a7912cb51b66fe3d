import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { createLocalHost, mergeLocalPullRequest } from '../../src/hosts/index.js';
import type { CodeHost } from '../../src/hosts/types.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { git, useRepository } from '../support/worker.js';

const identity = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

/** Commits `files` on `branch` (made from `from`) in a bare repository, through a temporary clone. */
function commitOn(bare: string, from: string, branch: string, files: Record<string, string>): string {
  const work = fs.mkdtempSync(`${bare}-work-`);
  git(path.dirname(bare), 'clone', '-q', '--branch', from, bare, work);
  git(work, 'checkout', '-q', '-B', branch);
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(work, file), content);
  git(work, 'add', '-A');
  git(work, ...identity, 'commit', '-q', '-m', `change ${branch}`);
  git(work, 'push', '-q', 'origin', `${branch}:${branch}`);
  fs.rmSync(work, { recursive: true, force: true });
  return git(bare, 'rev-parse', branch);
}

// The local code host (docs/code-hosts.md) on every dialect.
describe.each(testDialects())('local code host on %s', (dialect) => {
  let t: TestStore;
  let project: Project;
  let host: CodeHost;

  const repository = useRepository({ name: 'local-host', bare: true });
  beforeAll(async () => {
    t = await openTestStore(dialect);
    project = await t.store.projects.create({ name: 'Docs', repository: repository.bare });
    host = createLocalHost({ pullRequests: t.store.pullRequests, publicUrl: 'https://jobs.example.com' });
  });
  afterAll(async () => {
    await t.close();
  });

  const open = async (branch: string, projectOf = project, title = `Change ${branch}`) => {
    const job = await t.store.jobs.create({
      projectId: projectOf.id,
      prompt: title,
      model: 'anthropic:claude-sonnet-4-5',
      baseRef: 'main',
      repository: projectOf.repository,
      draft: false,
    });
    return host.openOrUpdatePullRequest({
      project: projectOf,
      job: job as Job,
      branch,
      base: 'main',
      title,
      body: 'Body',
      draft: false,
      headSha: 'a'.repeat(40),
    });
  };

  it('numbers pull requests per project and reuses the one of a branch', async () => {
    const first = await open('agentjobs/one');
    expect(first).toEqual({ number: 1, url: `https://jobs.example.com/ui/projects/${project.id}/pulls/1` });
    expect(await open('agentjobs/two')).toMatchObject({ number: 2 });
    const again = await open('agentjobs/one', project, 'Renamed');
    expect(again).toEqual(first);
    expect(await t.store.pullRequests.get(project.id, 1)).toMatchObject({ title: 'Renamed', state: 'open' });
    const other = await t.store.projects.create({ name: 'Other', repository: repository.bare });
    expect(await open('agentjobs/one', other)).toMatchObject({ number: 1 });
    const { pullRequests, more } = await t.store.pullRequests.list(project.id, { limit: 1 });
    expect(pullRequests.map((p) => p.number)).toEqual([2]);
    expect(more).toBe(true);
  });

  it('opens one pull request when runs of one branch race', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => open('agentjobs/race')));
    expect(new Set(results.map((r) => r.number)).size).toBe(1);
    const all = await t.store.pullRequests.list(project.id, { limit: 100 });
    expect(all.pullRequests.filter((p) => p.headBranch === 'agentjobs/race')).toHaveLength(1);
  });

  const merge = (number: number) =>
    t.store.pullRequests.get(project.id, number).then((pullRequest) => {
      if (!pullRequest) throw new Error(`no #${number}`);
      return mergeLocalPullRequest({
        project,
        pullRequest,
        pullRequests: t.store.pullRequests,
        authorName: 'agentjobs',
        authorEmail: 'agentjobs@localhost',
      });
    });

  it('merges by fast-forward when the base has not moved, then by a merge commit', async () => {
    const head = commitOn(repository.bare, 'main', 'agentjobs/ff', { 'ff.md': 'ff\n' });
    const { number } = await open('agentjobs/ff');
    const result = await merge(number);
    expect(result).toMatchObject({ sha: head, fastForward: true, pullRequest: { state: 'merged' } });
    expect(result.pullRequest.mergedAt).not.toBeNull();
    expect(git(repository.bare, 'rev-parse', 'main')).toBe(head);

    const side = commitOn(repository.bare, 'main', 'agentjobs/side', { 'side.md': 'side\n' });
    commitOn(repository.bare, 'main', 'main', { 'other.md': 'other\n' });
    const before = git(repository.bare, 'rev-parse', 'main');
    const { number: sideNumber } = await open('agentjobs/side');
    const merged = await merge(sideNumber);
    expect(merged.fastForward).toBe(false);
    expect(git(repository.bare, 'rev-parse', 'main')).toBe(merged.sha);
    expect(git(repository.bare, 'rev-list', '--parents', '-n', '1', 'main').split(' ').slice(1)).toEqual([
      before,
      side,
    ]);
    expect(git(repository.bare, 'show', 'main:side.md')).toBe('side');
    expect(git(repository.bare, 'log', '-1', '--format=%an %s', 'main')).toMatch(
      /^agentjobs Merge pull request #\d+/,
    );
  });

  it('refuses a conflicting merge and leaves everything as it was', async () => {
    commitOn(repository.bare, 'main', 'agentjobs/conflict', { 'README.md': 'theirs\n' });
    commitOn(repository.bare, 'main', 'main', { 'README.md': 'ours\n' });
    const before = git(repository.bare, 'rev-parse', 'main');
    const { number } = await open('agentjobs/conflict');
    await expect(merge(number)).rejects.toThrow(/conflicts/);
    expect(git(repository.bare, 'rev-parse', 'main')).toBe(before);
    expect((await t.store.pullRequests.get(project.id, number))?.state).toBe('open');
    expect((await t.store.pullRequests.finish(project.id, number, 'closed'))?.state).toBe('closed');
  });
});
