import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';

// While the server drains (SIGTERM's grace period), the dashboard's forms take no new work, as the
// API's writes do: 503 with Retry-After, words a person understands, the form kept, nothing written.
describe.each(testDialects())('the dashboard while the server drains on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  let job: Job;
  beforeAll(async () => {
    job = await t.makeJob('Fix the header');
    t.lifecycle.draining = true;
  });

  const jobsUrl = () => `/ui/projects/${t.project.id}/jobs`;

  it('answers a new job with 503 and says the server is shutting down', async () => {
    await browser.get(jobsUrl());
    const refused = await browser.post(jobsUrl(), { prompt: 'Add a FAQ page', idempotencyKey: 'k-drain' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toContain('The server is shutting down; try again in a moment.');
    expect(refused.body).toContain('>Add a FAQ page</textarea>');
    const { jobs } = await t.store.jobs.list(t.project.id, { limit: 10 });
    expect(jobs.map((each) => each.id)).toEqual([job.id]);
  });

  it('answers a follow-up with 503 and keeps its text', async () => {
    const url = `${jobsUrl()}/${job.id}`;
    const refused = await browser.post(`${url}/follow-up`, { prompt: 'Also fix the footer' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toContain('The server is shutting down; try again in a moment.');
    expect(refused.body).toContain('>Also fix the footer</textarea>');
    const events = await t.store.events.list(job.id, 0, 100);
    expect(
      events.some((event) => event.type === 'message' && event.data.text === 'Also fix the footer'),
    ).toBe(false);
  });

  it('still shows pages, and takes work again once the server is not draining', async () => {
    expect((await browser.get(`${jobsUrl()}/${job.id}`)).status).toBe(200);
    t.lifecycle.draining = false;
    const started = await browser.post(jobsUrl(), { prompt: 'Add a FAQ page', idempotencyKey: 'k-after' });
    expect(started.status).toBe(303);
  });
});
