import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { mergeLocalPullRequest, noticeOutsideChanges } from '../../src/hosts/index.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { git, useRepository } from '../support/worker.js';

const identity = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

// The local host with a working copy as its repository (docs/code-hosts.md): `main` checked out, as a
// newcomer's `git init` makes it. Merges keep that working copy consistent; git done by hand shows.
describe.each(testDialects())('local host on a working copy, %s', (dialect) => {
  let t: TestStore;
  let project: Project;

  const repository = useRepository({ name: 'local-wc' });
  beforeAll(async () => {
    t = await openTestStore(dialect);
    project = await t.store.projects.create({ name: 'Copy', repository: repository.repo });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A branch from `main` with `files` committed, as the worker pushes one, and its pull request. */
  const branch = async (name: string, files: Record<string, string>) => {
    git(
      repository.repo,
      'worktree',
      'add',
      '-q',
      '-b',
      name,
      path.join(repository.dir, name.replace(/\W/g, '-')),
      'main',
    );
    const tree = path.join(repository.dir, name.replace(/\W/g, '-'));
    for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(tree, file), content);
    git(tree, 'add', '-A');
    git(tree, ...identity, 'commit', '-q', '-m', `change ${name}`);
    git(repository.repo, 'worktree', 'remove', tree);
    const job = await t.store.jobs.create({
      projectId: project.id,
      prompt: name,
      model: 'anthropic:claude-sonnet-4-5',
      baseRef: 'main',
      repository: repository.repo,
      draft: false,
    });
    const { pullRequest } = await t.store.pullRequests.openOrUpdate({
      projectId: project.id,
      jobId: job.id,
      headBranch: name,
      baseBranch: 'main',
      title: name,
      body: '',
      draft: false,
      headSha: git(repository.repo, 'rev-parse', name),
    });
    return pullRequest;
  };
  const merge = (pullRequest: Awaited<ReturnType<typeof branch>>) =>
    mergeLocalPullRequest({
      project,
      pullRequest,
      pullRequests: t.store.pullRequests,
      authorName: 'agentjobs',
      authorEmail: 'bot@example.com',
    });

  it('fast-forwards a checked-out main with its files and index, keeping unrelated changes', async () => {
    const pull = await branch('agentjobs/faq', { 'faq.md': '# FAQ\n' });
    fs.writeFileSync(path.join(repository.repo, 'docs', 'guide.md'), '# Guide\n\nMy edit.\n');
    const result = await merge(pull);
    expect(result.fastForward).toBe(true);
    expect(git(repository.repo, 'rev-parse', 'main')).toBe(pull.headSha);
    expect(fs.readFileSync(path.join(repository.repo, 'faq.md'), 'utf8')).toBe('# FAQ\n');
    // Only the user's own edit is left, unstaged: the index matches the new main.
    expect(git(repository.repo, 'status', '--porcelain')).toBe('M docs/guide.md');
    expect((await t.store.pullRequests.get(project.id, pull.number))?.state).toBe('merged');
    git(repository.repo, 'checkout', '-q', '--', 'docs/guide.md');
  });

  it('merges a branch behind a moved main with a merge commit, checked out and clean', async () => {
    const pull = await branch('agentjobs/side', { 'side.md': 'side\n' });
    fs.writeFileSync(path.join(repository.repo, 'own.md'), 'own\n');
    git(repository.repo, 'add', 'own.md');
    git(repository.repo, ...identity, 'commit', '-q', '-m', 'own');
    const before = git(repository.repo, 'rev-parse', 'main');
    const result = await merge(pull);
    expect(result.fastForward).toBe(false);
    expect(git(repository.repo, 'rev-parse', 'HEAD')).toBe(result.sha);
    expect(git(repository.repo, 'rev-list', '--parents', '-n', '1', 'main').split(' ').slice(1)).toEqual([
      before,
      pull.headSha,
    ]);
    expect(fs.readFileSync(path.join(repository.repo, 'side.md'), 'utf8')).toBe('side\n');
    expect(git(repository.repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses while uncommitted changes would be overwritten, and changes nothing', async () => {
    const pull = await branch('agentjobs/readme', { 'README.md': '# Docs\n\nBetter.\n' });
    fs.writeFileSync(path.join(repository.repo, 'README.md'), '# Docs\n\nMine, not committed.\n');
    const before = git(repository.repo, 'rev-parse', 'main');
    await expect(merge(pull)).rejects.toThrow(
      /main is checked out in .*uncommitted changes there \(README\.md\).*Commit them, or stash them/,
    );
    expect(git(repository.repo, 'rev-parse', 'main')).toBe(before);
    expect(fs.readFileSync(path.join(repository.repo, 'README.md'), 'utf8')).toBe(
      '# Docs\n\nMine, not committed.\n',
    );
    expect((await t.store.pullRequests.get(project.id, pull.number))?.state).toBe('open');
    // Committed, the same merge goes through (as a merge commit: main moved).
    git(repository.repo, 'checkout', '-q', '--', 'README.md');
    expect((await merge(pull)).pullRequest.state).toBe('merged');
    expect(git(repository.repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses an untracked file the merge would overwrite', async () => {
    const pull = await branch('agentjobs/new-page', { 'new.md': 'theirs\n' });
    fs.writeFileSync(path.join(repository.repo, 'new.md'), 'mine\n');
    await expect(merge(pull)).rejects.toThrow(/new\.md.*stash them/);
    expect(fs.readFileSync(path.join(repository.repo, 'new.md'), 'utf8')).toBe('mine\n');
    fs.rmSync(path.join(repository.repo, 'new.md'));
  });

  it('shows a pull request merged by hand as merged, and one whose branch is gone as closed', async () => {
    const merged = await branch('agentjobs/by-hand', { 'hand.md': 'hand\n' });
    const deleted = await branch('agentjobs/deleted', { 'gone.md': 'gone\n' });
    const open = await branch('agentjobs/still-open', { 'open.md': 'open\n' });
    git(repository.repo, ...identity, 'merge', '-q', '--no-edit', 'agentjobs/by-hand');
    git(repository.repo, 'branch', '-q', '-D', 'agentjobs/deleted');

    const notice = (pull: typeof merged) => noticeOutsideChanges(project, pull, t.store.pullRequests);
    expect((await notice(merged)).state).toBe('merged');
    expect((await t.store.pullRequests.get(project.id, merged.number))?.mergedAt).not.toBeNull();
    expect((await notice(deleted)).state).toBe('closed');
    expect((await t.store.pullRequests.get(project.id, deleted.number))?.state).toBe('closed');
    expect((await notice(open)).state).toBe('open');
    expect((await t.store.pullRequests.get(project.id, open.number))?.state).toBe('open');

    // Merged by hand and then deleted: still merged (its last head is in main).
    const tidy = await branch('agentjobs/tidy', { 'tidy.md': 'tidy\n' });
    git(repository.repo, ...identity, 'merge', '-q', '--no-edit', 'agentjobs/tidy');
    git(repository.repo, 'branch', '-q', '-d', 'agentjobs/tidy');
    expect((await notice(tidy)).state).toBe('merged');
  });
});
