import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { ensureMirror } from '../../src/git/mirror.js';
import { createLocalHost, mergeLocalPullRequest, noticeOutsideChanges } from '../../src/hosts/index.js';
import { resolveRepository } from '../../src/hosts/project-settings.js';
import { openTestStore, type TestStore } from '../support/db.js';
import { git, makeRepo, tempDir } from '../support/worker.js';

const identity = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

/** Hooks that the service's git commands in a local repository would set off, if any ran. */
const HOOKS = [
  'pre-commit',
  'post-commit',
  'post-checkout',
  'post-merge',
  'pre-merge-commit',
  'post-rewrite',
  'post-index-change',
  'reference-transaction',
  'pre-auto-gc',
];

// A local project's repository is read and changed by git running inside it, where its own
// .git/config and .git/hooks apply: a merge there must run none of its hooks and no fsmonitor.
// (Hooks of the receiving side of a push are that repository's, as a server's are: not tested here.)
describe('a local repository whose config names hooks and an fsmonitor', () => {
  let t: TestStore;
  let dir: string;
  let marker: string;
  let copy: string;
  let bare: string;

  beforeAll(async () => {
    t = await openTestStore('sqlite');
    dir = tempDir('local-hooks');
    marker = path.join(dir, 'ran.marker');
    copy = makeRepo(dir).repo;
    bare = path.join(dir, 'docs.git');
    git(dir, 'clone', '-q', '--bare', copy, bare);
    for (const repository of [copy, bare]) {
      // A branch to merge, made before the hooks are in place.
      git(repository, 'branch', 'agentjobs/faq', 'main');
      const work = path.join(dir, `work-${path.basename(repository)}`);
      git(repository, 'worktree', 'add', '-q', work, 'agentjobs/faq');
      fs.writeFileSync(path.join(work, 'faq.md'), '# FAQ\n');
      git(work, 'add', 'faq.md');
      git(work, ...identity, 'commit', '-q', '-m', 'faq');
      git(repository, 'worktree', 'remove', work);
    }
    // main moves in the bare repository, so its merge is a merge commit and an update-ref there.
    const work = path.join(dir, 'work-main');
    git(bare, 'worktree', 'add', '-q', work, 'main');
    fs.writeFileSync(path.join(work, 'own.md'), 'own\n');
    git(work, 'add', 'own.md');
    git(work, ...identity, 'commit', '-q', '-m', 'own');
    git(bare, 'worktree', 'remove', work);

    const script = (name: string) => `#!/bin/sh\necho ${name} >> '${marker}'\ncat > /dev/null\n`;
    fs.writeFileSync(path.join(dir, 'fsmonitor.sh'), script('fsmonitor'), { mode: 0o755 });
    for (const gitDir of [path.join(copy, '.git'), bare]) {
      for (const hook of HOOKS)
        fs.writeFileSync(path.join(gitDir, 'hooks', hook), script(`${hook} in ${gitDir}`), { mode: 0o755 });
      git(gitDir, 'config', 'core.fsmonitor', path.join(dir, 'fsmonitor.sh'));
    }
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ran = () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');

  it('checks, mirrors, notices and merges there without running any of them', async () => {
    const host = createLocalHost({ pullRequests: t.store.pullRequests, publicUrl: 'http://agentjobs.test' });
    for (const repository of [copy, bare]) {
      expect((await resolveRepository(repository, 'local')).detectedBase).toBe('main');
      const project: Project = await t.store.projects.create({
        name: path.basename(repository),
        repository,
      });
      expect((await host.check?.(project))?.filter((check) => !check.ok)).toEqual([]);
      await ensureMirror({
        mirrorsDir: path.join(dir, 'mirrors'),
        projectId: project.id,
        repository,
        env: {},
      });
      const job = await t.store.jobs.create({
        projectId: project.id,
        prompt: 'Add a FAQ',
        model: 'anthropic:claude-sonnet-4-5',
        baseRef: 'main',
        repository,
        draft: false,
      });
      const { pullRequest } = await t.store.pullRequests.openOrUpdate({
        projectId: project.id,
        jobId: job.id,
        headBranch: 'agentjobs/faq',
        baseBranch: 'main',
        title: 'Add a FAQ',
        body: '',
        draft: false,
        headSha: git(repository, 'rev-parse', 'agentjobs/faq'),
      });
      expect((await noticeOutsideChanges(project, pullRequest, t.store.pullRequests)).state).toBe('open');
      const merged = await mergeLocalPullRequest({
        project,
        pullRequest,
        pullRequests: t.store.pullRequests,
        authorName: 'agentjobs',
        authorEmail: 'bot@example.com',
      });
      expect(merged.fastForward).toBe(repository === copy);
      expect(git(repository, 'show', 'main:faq.md')).toBe('# FAQ');
    }
    expect(fs.readFileSync(path.join(copy, 'faq.md'), 'utf8')).toBe('# FAQ\n');
    expect(ran()).toBe('');
  });
});
