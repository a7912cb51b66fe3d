import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { AgentError } from '../../src/run/agent-port.js';
import { testDialects } from '../support/db.js';
import { useFakeWorker } from '../support/fake-worker.js';
import { partsOf } from '../support/use-fixture.js';
import { fakeAgent, git, hasRef, untilAborted, waitFor } from '../support/worker.js';

// The whole run pipeline with a fake agent: real git repositories, the local code host, a real database.
describe.each(testDialects())('worker runs on %s', (dialect) => {
  const agent = fakeAgent();
  const bench = useFakeWorker({ name: 'worker-run', dialect, agent });
  const { t, project, running } = partsOf(bench, 't', 'project', 'running');

  const create = (prompt: string, options: { model?: string; projectId?: string } = {}) =>
    t.store.jobs.create({
      projectId: options.projectId ?? project.id,
      prompt,
      model: options.model ?? 'openai:fake',
      baseRef: 'main',
      repository: bench.repo,
      draft: false,
    });
  const finished = (job: Job) =>
    waitFor(
      () => t.store.jobs.get(job.projectId, job.id),
      (j) => j?.status !== 'active',
    );
  const eventsOf = async (jobId: string) => t.store.events.list(jobId, 0, 1000);
  /** Checks that `job` pushed no branch, opened no pull request and made no commit; its event types. */
  const expectNothingPublished = async (job: Job) => {
    expect(hasRef(bench.repo, `refs/heads/${job.source.ref}`)).toBe(false);
    expect(await t.store.pullRequests.getByBranch(project.id, job.source.ref)).toBeUndefined();
    const types = (await eventsOf(job.id)).map((event) => event.type);
    expect(types).not.toContain('commit');
    return types;
  };
  /** A project `name` that pushes onto `main` of a clone (`git clone …options`) of the repository. */
  const pushingProject = async (name: string, folder: string, ...options: string[]) => {
    const clone = path.join(bench.dir, folder);
    git(bench.dir, 'clone', '-q', ...options, bench.repo, clone);
    return { clone, project: await t.store.projects.create({ name, repository: clone, publish: 'push' }) };
  };
  const worktrees = () => fs.readdirSync(path.join(bench.dataDir, 'worktrees'));

  it('publishes the change on the job branch and opens a pull request; the base stays untouched', async () => {
    agent.setScript(async ({ workspace }) => {
      await workspace.writeFile('docs/faq.md', '# FAQ\n\nAsk away.\n');
      return { summary: 'Add an FAQ page\n\nI added docs/faq.md.' };
    });
    const job = await create('Add an FAQ page');
    const done = await finished(job);

    expect(done).toMatchObject({
      status: 'completed',
      phase: null,
      error: null,
      title: 'Add an FAQ page',
      summary: 'Add an FAQ page\n\nI added docs/faq.md.',
      filesChanged: 1,
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, steps: 1, costUsd: null },
      prLink: `http://agentjobs.test/ui/projects/${project.id}/pulls/1`,
    });
    expect(done?.completedAt).not.toBeNull();
    const branch = job.source.ref;
    expect(git(bench.repo, 'rev-parse', 'main')).toBe(bench.baseSha);
    expect(git(bench.repo, 'status', '--porcelain')).toBe('');
    expect(git(bench.repo, 'diff', '--name-status', `main...${branch}`)).toBe('A\tdocs/faq.md');
    expect(git(bench.repo, 'show', `${branch}:docs/faq.md`)).toBe('# FAQ\n\nAsk away.');
    expect(git(bench.repo, 'log', '-1', '--format=%an <%ae>', branch)).toBe(
      'agentjobs <agentjobs@localhost>',
    );

    const pr = await t.store.pullRequests.get(project.id, 1);
    expect(pr).toMatchObject({
      jobId: job.id,
      headBranch: branch,
      baseBranch: 'main',
      state: 'open',
      title: 'Add an FAQ page',
      headSha: git(bench.repo, 'rev-parse', branch),
    });
    expect(pr?.body).toContain('Add an FAQ page');

    const events = await eventsOf(job.id);
    expect(events.map((event) => event.type)).toEqual([
      'status',
      'phase',
      'phase',
      'check',
      'phase',
      'commit',
      'pull_request',
      'status',
    ]);
    expect(events.filter((e) => e.type === 'phase').map((e) => e.data.phase)).toEqual([
      'preparing',
      'running',
      'publishing',
    ]);
    expect(events.find((e) => e.type === 'commit')?.data).toMatchObject({
      sha: pr?.headSha,
      files: ['docs/faq.md'],
      branch,
    });
    expect(events.find((e) => e.type === 'pull_request')?.data).toEqual({ url: done?.prLink, number: 1 });
    expect(worktrees()).toEqual([]);

    // A second run of the same job (a retry after the PR was opened) reuses the branch and the PR.
    await t.db.kysely
      .updateTable('jobs')
      .set({ status: 'active', phase: 'queued', completed_at: null })
      .where('id', '=', job.id)
      .execute();
    await t.db.kysely.deleteFrom('job_worker_state').where('job_id', '=', job.id).execute();
    await t.db.notify('agentjobs_jobs', job.id);
    const again = await finished(job);
    expect(again).toMatchObject({ status: 'completed', prLink: done?.prLink, filesChanged: 1 });
    expect(agent.calls.at(-1)?.prompts).toEqual(['Add an FAQ page']);
    expect(git(bench.repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    const { pullRequests } = await t.store.pullRequests.list(project.id, { limit: 10 });
    expect(pullRequests.map((p) => p.number)).toEqual([1]);

    // A follow-up adds a commit to the same branch and updates the same pull request.
    agent.setScript(async ({ workspace }) => {
      await workspace.writeFile('docs/faq.md', '# FAQ\n\nAsk away, kindly.\n');
      // The model's answer to a follow-up is a chat line; the job and its pull request keep their title.
      return { summary: 'Done. I made it kinder.', title: 'Done. I made it kinder.' };
    });
    await t.store.jobs.followUp(project.id, job.id, 'Be kinder');
    const followed = await waitFor(
      () => t.store.jobs.get(project.id, job.id),
      (j) => j?.status === 'completed' && j.summary === 'Done. I made it kinder.',
    );
    const call = agent.calls.at(-1);
    expect(call?.prompts).toEqual(['Be kinder']);
    expect(JSON.stringify(call?.history)).toContain('Add an FAQ page');
    expect(followed).toMatchObject({
      prLink: done?.prLink,
      filesChanged: 1,
      usage: { steps: 3 },
      title: 'Add an FAQ page',
    });
    expect(git(bench.repo, 'rev-list', '--count', `main..${branch}`)).toBe('2');
    expect(git(bench.repo, 'show', `${branch}:docs/faq.md`)).toContain('kindly');
    expect(git(bench.repo, 'rev-parse', 'main')).toBe(bench.baseSha);
    const updated = await t.store.pullRequests.get(project.id, 1);
    expect(updated?.headSha).toBe(git(bench.repo, 'rev-parse', branch));
    expect(updated?.title).toBe('Add an FAQ page');
    expect((await t.store.pullRequests.list(project.id, { limit: 10 })).pullRequests).toHaveLength(1);
  });

  it('counts the files a run changed as paths, a move as two and a rewrite to the same bytes as none', async () => {
    agent.setScript(async ({ workspace }) => {
      await workspace.moveFile('docs/guide.md', 'docs/steps.md');
      await workspace.writeFile('README.md', '# Docs\n\nWelcome.\n');
      await workspace.writeFile('img/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
      return { summary: 'Move the guide' };
    });
    const job = await create('Move the guide');
    const done = await finished(job);
    const branch = job.source.ref;
    const listed = () =>
      git(bench.repo, 'diff', '--name-only', '--no-renames', `main...${branch}`).split('\n');
    expect(listed()).toEqual(['docs/guide.md', 'docs/steps.md', 'img/logo.png']);
    expect(done).toMatchObject({ status: 'completed', filesChanged: 3 });

    // A follow-up continues the branch, and git is asked: the picture added and taken away is no change.
    agent.setScript(async ({ workspace }) => {
      await workspace.deleteFile('img/logo.png');
      return { summary: 'Drop the logo' };
    });
    await t.store.jobs.followUp(project.id, job.id, 'Drop the logo');
    const followed = await waitFor(
      () => t.store.jobs.get(project.id, job.id),
      (j) => j?.status === 'completed' && j.summary === 'Drop the logo',
    );
    expect(listed()).toEqual(['docs/guide.md', 'docs/steps.md']);
    expect(followed).toMatchObject({ filesChanged: 2 });
  });

  it('completes with no pull request and pushes nothing when nothing changed', async () => {
    agent.setScript(async () => ({ summary: 'Everything is already correct.' }));
    const job = await create('Check the README');
    const done = await finished(job);
    expect(done).toMatchObject({ status: 'completed', prLink: null, filesChanged: 0, error: null });
    const types = await expectNothingPublished(job);
    expect(types).not.toContain('pull_request');
  });

  it('stops a run when its job is archived, and publishes nothing', async () => {
    let abortedAt = 0;
    agent.setScript(async ({ workspace, signal }) => {
      await workspace.writeFile('draft.md', 'draft\n');
      try {
        return await untilAborted(signal);
      } finally {
        abortedAt = Date.now();
      }
    });
    const job = await create('Write a draft');
    await waitFor(async () => agent.calls.some((c) => c.branch === job.source.ref), Boolean);
    await t.store.jobs.archive(project.id, job.id);
    await waitFor(
      async () => abortedAt,
      (at) => at > 0,
      { timeoutMs: 30_000 },
    );
    await waitFor(
      async () => worktrees(),
      (list) => list.length === 0,
    );
    expect(await t.store.jobs.get(project.id, job.id)).toMatchObject({ status: 'archived', phase: null });
    const types = await expectNothingPublished(job);
    expect(types).not.toContain('error');
  });

  it('fails at once with model_unavailable, without running the agent or touching git', async () => {
    const before = agent.calls.length;
    const job = await create('Anything', { model: 'none' });
    const done = await finished(job);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'model_unavailable' }, prLink: null });
    expect(agent.calls.length).toBe(before);
    const row = await t.db.kysely
      .selectFrom('jobs')
      .select('attempt')
      .where('id', '=', job.id)
      .executeTakeFirst();
    expect(Number(row?.attempt)).toBe(1);
  });

  it('fails with the agent error code, keeping its partial conversation for a follow-up', async () => {
    agent.setScript(async ({ workspace, history, prompts }) => {
      await workspace.writeFile('half.md', 'half\n');
      const error = new AgentError('step_limit', 'The agent used all 50 steps.');
      error.partial = {
        messages: [...history, ...prompts.map((content) => ({ role: 'user' as const, content }))],
        usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, steps: 50, costUsd: null },
        filesChanged: ['half.md'],
      };
      throw error;
    });
    const job = await create('Do too much');
    const done = await finished(job);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: 'step_limit', message: 'The agent used all 50 steps.' },
      prLink: null,
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0, steps: 50, costUsd: null },
    });
    expect(hasRef(bench.repo, `refs/heads/${job.source.ref}`)).toBe(false);
    const types = (await eventsOf(job.id)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['error', 'status']);

    agent.setScript(async () => ({ summary: 'Fine now' }));
    await t.store.jobs.followUp(project.id, job.id, 'Do less');
    await waitFor(
      () => t.store.jobs.get(project.id, job.id),
      (j) => j?.status === 'completed',
    );
    expect(agent.calls.at(-1)?.prompts).toEqual(['Do less']);
    expect(JSON.stringify(agent.calls.at(-1)?.history)).toContain('Do too much');
  });

  it('fails an unexpected error with internal_error and a message that gives nothing away', async () => {
    agent.setScript(async () => {
      throw new TypeError('secret internals at /srv/app.js:42');
    });
    const job = await create('Crash');
    const done = await finished(job);
    expect(done?.status).toBe('failed');
    expect(done?.error?.code).toBe('internal_error');
    expect(done?.error?.message).not.toContain('secret');
    expect(running.logs.some((line) => line.includes('secret internals'))).toBe(true);
  });

  it('in push mode commits straight onto the base, fast-forward, with no pull request', async () => {
    const { clone: bare, project: staging } = await pushingProject('Staging', 'staging.git', '--bare');
    agent.setScript(async ({ workspace }) => {
      await workspace.writeFile('README.md', '# Docs\n\nWelcome, staging.\n');
      return { summary: 'Tweak the welcome' };
    });
    const job = await create('Tweak the welcome', { projectId: staging.id });
    const done = await finished(job);
    expect(done).toMatchObject({ status: 'completed', prLink: null, filesChanged: 1 });
    expect(git(bare, 'rev-parse', 'main^')).toBe(bench.baseSha);
    expect(git(bare, 'show', 'main:README.md')).toContain('Welcome, staging.');
    expect(hasRef(bare, `refs/heads/${job.source.ref}`)).toBe(false);
    const commit = (await eventsOf(job.id)).find((event) => event.type === 'commit');
    expect(commit?.data).toMatchObject({ sha: git(bare, 'rev-parse', 'main'), branch: 'main' });
    expect((await t.store.pullRequests.list(staging.id, { limit: 10 })).pullRequests).toEqual([]);
  });

  it('in push mode refuses to update a working copy that has the base checked out', async () => {
    const { clone: copy, project: pushed } = await pushingProject('Copy', 'copy');
    const before = git(copy, 'rev-parse', 'main');
    agent.setScript(async ({ workspace }) => {
      await workspace.writeFile('README.md', 'changed\n');
      return { summary: 'Change' };
    });
    const job = await create('Change the README', { projectId: pushed.id });
    const done = await finished(job);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'repository_error' } });
    expect(done?.error?.message).toContain('receive.denyCurrentBranch updateInstead');
    expect(git(copy, 'rev-parse', 'main')).toBe(before);
    expect(git(copy, 'status', '--porcelain')).toBe('');
  });
});
