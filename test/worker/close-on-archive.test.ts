import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLOSE_ATTEMPTS,
  closeDuePullRequests,
  startPullRequestCloser,
} from '../../src/background/close-pull-requests.js';
import type { NewProject, Project } from '../../src/domain/project.js';
import { createCodeHosts } from '../../src/hosts/index.js';
import { createLogger } from '../../src/log.js';
import { memoryLog } from '../support/app.js';
import { makeTestJob, testDialects, useTestStore } from '../support/db.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';
import { git, useRepository } from '../support/worker.js';

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`;

// Archiving a job closes its open pull request (unless the project says not to), after the
// archive has answered: the closer takes what the archive noted, on every dialect.
describe.each(testDialects())('closing pull requests of archived jobs on %s', (dialect) => {
  const t = useTestStore(dialect);
  const temp = useRepository({ name: 'close-on-archive' });
  let github: GithubDouble;
  const logs: string[] = [];
  let closer: Parameters<typeof closeDuePullRequests>[0];

  beforeAll(async () => {
    github = await startGithubDouble({ token: TOKEN });
    github.repository('org', 'docs');
    closer = {
      store: t.store,
      logger: createLogger('debug', memoryLog(logs)),
      hosts: createCodeHosts({
        secret: async () => TOKEN,
        pullRequests: t.store.pullRequests,
        askpassDir: path.join(temp.dir, 'askpass'),
        publicUrl: 'http://agentjobs.test',
        githubRetry: { baseMs: 5, pacing: false, retries: 0 },
      }),
    };
  });
  afterAll(async () => {
    await github?.close();
  });

  /** A completed job of `project` with an open pull request, as the worker leaves one. */
  const publishedJob = async (project: Project) => {
    const job = await makeTestJob(t.store, project, 'Add a page');
    const branch = job.source.ref;
    if (project.host === 'local') git(temp.repo, 'branch', branch, 'main');
    const link = await closer.hosts(project.host).openOrUpdatePullRequest({
      project,
      job,
      branch,
      base: 'main',
      title: 'Add a page',
      body: '',
      draft: false,
      headSha: project.host === 'local' ? git(temp.repo, 'rev-parse', 'main') : 'a'.repeat(40),
    });
    await t.store.db.kysely
      .updateTable('jobs')
      .set({ status: 'completed', phase: null, pr_link: link.url })
      .where('id', '=', job.id)
      .execute();
    return { job, link };
  };
  const project = (input: Partial<NewProject> = {}) =>
    t.store.projects.create({ name: 'Docs', repository: temp.repo, ...input });
  const events = async (jobId: string) =>
    (await t.store.events.list(jobId, 0, 100)).filter((event) => event.type === 'pull_request');

  it('closes it as soon as the archive commits, not at the next poll', async () => {
    const local = await project();
    const { job, link } = await publishedJob(local);
    // A poll far beyond the test's time: only the archive's notification can wake the closer.
    const running = await startPullRequestCloser({ ...closer, intervalMs: 3_600_000 });
    try {
      await t.store.jobs.archive(local.id, job.id);
      await expect
        .poll(async () => (await t.store.pullRequests.get(local.id, link.number))?.state, { timeout: 20_000 })
        .toBe('closed');
    } finally {
      await running.stop();
    }
  });

  it('closes the pull request of an archived job once the archive has answered', async () => {
    const local = await project();
    expect(local.closePrOnArchive).toBe(true);
    const { job, link } = await publishedJob(local);
    const archived = await t.store.jobs.archive(local.id, job.id);
    expect(archived.status).toBe('archived');
    // The archive only noted it: the pull request is still open until the closer runs.
    expect((await t.store.pullRequests.get(local.id, link.number))?.state).toBe('open');
    expect(await closeDuePullRequests(closer)).toBe(1);
    expect((await t.store.pullRequests.get(local.id, link.number))?.state).toBe('closed');
    expect(await events(job.id)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ action: 'closed', url: link.url }) }),
    ]);
    // Done: nothing is left to close, and archiving again changes nothing.
    await t.store.jobs.archive(local.id, job.id);
    expect(await closeDuePullRequests(closer)).toBe(0);
  });

  it('leaves it open when the project says so', async () => {
    const keep = await project({ closePrOnArchive: false });
    const { job, link } = await publishedJob(keep);
    await t.store.jobs.archive(keep.id, job.id);
    expect(await closeDuePullRequests(closer)).toBe(0);
    expect((await t.store.pullRequests.get(keep.id, link.number))?.state).toBe('open');
    const updated = await t.store.projects.update(keep.id, { closePrOnArchive: true });
    expect(updated?.closePrOnArchive).toBe(true);
  });

  it('closes a GitHub pull request, and tries again later while GitHub is unreachable', async () => {
    const hub = await project({
      host: 'github',
      repository: 'https://github.com/org/docs',
      hostSettings: { apiUrl: github.url },
    });
    const { job, link } = await publishedJob(hub);
    const pull = () => github.repository('org', 'docs').pulls.find((p) => p.number === link.number);
    expect(pull()?.state).toBe('open');

    // Down: the project points at an address where nothing listens.
    const down = await t.store.projects.update(hub.id, { hostSettings: { apiUrl: 'http://127.0.0.1:9' } });
    expect(down).toBeDefined();
    await t.store.jobs.archive(hub.id, job.id);
    expect(await closeDuePullRequests(closer)).toBe(1);
    expect(pull()?.state).toBe('open');
    expect(logs.some((line) => line.includes('trying again later'))).toBe(true);
    // Not due again until its wait is over; then, with GitHub back, it closes.
    expect(await closeDuePullRequests(closer)).toBe(0);
    await t.store.projects.update(hub.id, { hostSettings: { apiUrl: github.url } });
    expect(await closeDuePullRequests(closer, new Date(Date.now() + 60_000))).toBe(1);
    expect(pull()?.state).toBe('closed');
    expect((await events(job.id)).map((event) => 'action' in event.data && event.data.action)).toEqual([
      'closed',
    ]);
  });

  /**
   * A GitHub project whose job published a pull request, the project now pointing at an address
   * where nothing listens: every close fails until the host is back.
   */
  const publishedWithHostDown = async () => {
    const hub = await project({
      host: 'github',
      repository: 'https://github.com/org/docs',
      hostSettings: { apiUrl: 'http://127.0.0.1:9' },
    });
    const { job } = await publishedJob({ ...hub, hostSettings: { apiUrl: github.url } });
    return { hub, job };
  };

  it('logs a failed write of what a close came to, with the job, and writes it on the next pass', async () => {
    const { hub, job } = await publishedWithHostDown();
    // The host is down, and the database fails the first write of the retry's time.
    const closes = t.store.pullRequestCloses;
    let failures = 0;
    const store = {
      ...t.store,
      pullRequestCloses: {
        ...closes,
        retryAt: async (...args: Parameters<typeof closes.retryAt>) => {
          if (failures++ === 0) throw new Error('the database is away');
          return closes.retryAt(...args);
        },
      },
    };
    const attempts = async () =>
      (
        await t.store.db.kysely
          .selectFrom('jobs')
          .select('pr_close_attempts')
          .where('id', '=', job.id)
          .executeTakeFirstOrThrow()
      ).pr_close_attempts;
    // Only the archive's notification and the retry of a failed pass can drive it: the poll is far off.
    const running = await startPullRequestCloser({ ...closer, store, intervalMs: 3_600_000 });
    try {
      await t.store.jobs.archive(hub.id, job.id);
      await expect.poll(attempts, { timeout: 20_000 }).toBe(1);
    } finally {
      await running.stop();
    }
    expect(failures).toBe(2);
    const unrecorded = logs.filter((line) => line.includes('could not record') && line.includes(job.id));
    expect(unrecorded).toHaveLength(1);
    expect(unrecorded[0]).toContain('the database is away');
    // Its retry is not for the other tests to take.
    await t.store.pullRequestCloses.finish(job.id, { closed: false, url: '', message: 'Test over.' });
  });

  it('gives up after the last try and says so on the job', async () => {
    const { hub, job } = await publishedWithHostDown();
    await t.store.jobs.archive(hub.id, job.id);
    let at = Date.now();
    for (let attempt = 1; attempt <= CLOSE_ATTEMPTS; attempt++) {
      expect(await closeDuePullRequests(closer, new Date(at))).toBe(1);
      at += 7 * 3_600_000;
    }
    expect(await closeDuePullRequests(closer, new Date(at))).toBe(0);
    const [event] = await events(job.id);
    expect(event?.data).toMatchObject({ action: 'close_failed' });
    expect(event && 'message' in event.data && event.data.message).toMatch(/^Left open: /);
  });
});
