import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { type DashboardClient, signedInDashboard } from '../support/web-session.js';

describe.each(testDialects())('dashboard pages on %s', (dialect) => {
  let t: TestApp;
  let browser: DashboardClient;
  const jobs: Job[] = [];
  beforeAll(async () => {
    ({ t, browser } = await signedInDashboard(dialect));
    for (let i = 0; i < 60; i++)
      jobs.push(
        await t.makeJob(i === 59 ? 'Fix <script>alert(1)</script> on the home page' : `Job number ${i}`),
      );
    await t.store.jobs.archive(t.project.id, jobs[0]?.id ?? '');
  });
  afterAll(() => t.close());

  const rowsOf = (body: string) => body.match(/<tr><td><span class="badge/g)?.length ?? 0;

  it('lists jobs 50 a page, newest first, with a filter and a working "Older" link', async () => {
    const first = await browser.get(`/ui/projects/${t.project.id}/jobs`);
    expect(first.status).toBe(200);
    expect(rowsOf(first.body)).toBe(50);
    expect(first.body.indexOf('Fix &lt;script&gt;')).toBeLessThan(first.body.indexOf('Job number 58'));
    expect(first.body).not.toContain('<script>alert(1)');
    const older = /href="([^"]+before=[^"]+)">Older/.exec(first.body)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const second = await browser.get(older);
    expect(rowsOf(second.body)).toBe(10);
    expect(second.body).toContain('Job number 0');
    expect(second.body).not.toContain('>Older<');

    const archived = await browser.get(`/ui/projects/${t.project.id}/jobs?status=archived`);
    expect(rowsOf(archived.body)).toBe(1);
    expect(archived.body).toContain('Job number 0');
    // An unknown filter is ignored rather than an error: it is a link people edit by hand.
    expect((await browser.get(`/ui/projects/${t.project.id}/jobs?status=bogus`)).status).toBe(200);
    const rows = await browser.get(`/ui/projects/${t.project.id}/jobs/rows?status=archived`);
    expect(rows.body.startsWith('<tr>')).toBe(true);
    expect(rowsOf(rows.body)).toBe(1);
  });

  it('shows a job, takes a follow-up and archives it', async () => {
    const job = jobs[59] as Job;
    const url = `/ui/projects/${t.project.id}/jobs/${job.id}`;
    const page = await browser.get(url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Fix &lt;script&gt;alert(1)&lt;/script&gt; on the home page');
    expect(page.body).toContain(`data-events-url="${url}/stream?after=1"`);

    const empty = await browser.post(`${url}/follow-up`, { prompt: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain('Write the follow-up first.');
    const sent = await browser.post(`${url}/follow-up`, { prompt: 'Also fix the footer' });
    expect(sent.status).toBe(303);
    const events = await t.store.events.list(job.id, 0, 100);
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      data: { role: 'user', text: 'Also fix the footer' },
    });
    expect((await browser.get(url)).body).toContain('Also fix the footer');

    const summary = await browser.get(`${url}/summary`);
    expect(summary.body).toContain('id="job-status"');
    expect(summary.body).not.toContain('<html');

    expect((await browser.post(`${url}/archive`)).status).toBe(303);
    expect((await t.store.jobs.get(t.project.id, job.id))?.status).toBe('archived');
    const archived = await browser.get(url);
    expect(archived.body).toContain('This job is archived');
    expect(archived.body).not.toContain('Send follow-up');
    // The stream of a job that is no longer active sends what there is, then its end.
    const stream = await browser.get(`${url}/stream?after=0`);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.body).toContain('data: {"html":"<li data-seq=\\"1\\">');
    expect(stream.body.trimEnd().endsWith('event: end\ndata: {}')).toBe(true);
  });

  it("lists a check's problems and, apart, the notes the base already had", async () => {
    const [claimed] = await t.store.queue.claim({ owner: 'test', limit: 1, perProject: 5, leaseMs: 60_000 });
    const job = claimed?.job as Job;
    const lease = { jobId: job.id, attempt: claimed?.attempt ?? 0, owner: 'test' };
    await t.store.queue.recordChecks(
      lease,
      {
        status: 'failed',
        ranAt: new Date().toISOString(),
        results: [
          {
            name: 'links',
            status: 'failed',
            message: '1 broken link',
            problems: [{ path: 'guide.md', line: 3, message: 'Link to missing.md leads nowhere' }],
            notes: [{ path: 'guide.md', line: 9, message: 'Anchor #old-part is not on the page' }],
          },
        ],
      },
      { by: 'worker', round: 0 },
    );
    const page = await browser.get(`/ui/projects/${t.project.id}/jobs/${job.id}`);
    const checks = page.body.slice(page.body.indexOf('id="job-checks"'));
    expect(checks).toContain('<code>guide.md:3</code> <span class="pre">Link to missing.md leads nowhere');
    const notes = checks.slice(checks.indexOf('Already on the base branch'));
    expect(notes).toContain("not this job's to fix (1)");
    expect(notes).toContain('<code>guide.md:9</code> <span class="pre">Anchor #old-part is not on the page');
    await t.store.queue.fail(lease, { code: 'worker_lost', message: 'The test let go of it.' });
  });

  it('edits the settings and checks a local project', async () => {
    const url = `/ui/projects/${t.project.id}/settings`;
    await browser.get(url);
    const bad = await browser.post(url, {
      name: 'Docs',
      host: 'local',
      repository: t.project.repository,
      apiUrl: 'ftp://x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('must be an http(s) URL');
    expect((await t.store.projects.get(t.project.id))?.hostSettings).toEqual({});
    const check = await browser.post(`/ui/projects/${t.project.id}/check`);
    expect(check.status).toBe(200);
    expect(check.body).toContain('Access check');
  });

  it('answers unknown projects, jobs and pull requests with an HTML 404', async () => {
    for (const url of [
      '/ui/projects/nope/jobs',
      `/ui/projects/${t.project.id}/jobs/nope`,
      `/ui/projects/${t.project.id}/pulls/7`,
      '/ui/no-such-page',
    ]) {
      const response = await browser.get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('Not found');
    }
  });

  it('closes a pull request without merging', async () => {
    const job = jobs[1] as Job;
    const { pullRequest } = await t.store.pullRequests.openOrUpdate({
      projectId: t.project.id,
      jobId: job.id,
      headBranch: job.source.ref,
      baseBranch: 'main',
      title: 'A change',
      body: 'Body',
      draft: false,
      headSha: '0'.repeat(40),
    });
    const url = `/ui/projects/${t.project.id}/pulls/${pullRequest.number}`;
    const page = await browser.get(url);
    expect(page.body).toContain('Merge into main');
    expect((await browser.post(`${url}/close`)).status).toBe(303);
    expect((await t.store.pullRequests.get(t.project.id, pullRequest.number))?.state).toBe('closed');
    const closed = await browser.get(url);
    expect(closed.body).toContain('badge closed');
    expect(closed.body).not.toContain('Merge into main');
    expect((await browser.post(`${url}/close`)).status).toBe(409);
    expect((await browser.get(`/ui/projects/${t.project.id}/pulls`)).body).toContain('A change');
  });
});
