import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { type DashboardClient, signedInDashboard } from '../support/web-session.js';

/** The idempotency key the page's form carries. */
const formKey = (body: string) => /name="idempotencyKey" value="([^"]+)"/.exec(body)?.[1] ?? '';

// Starting a job from the dashboard's form: the API's own route in process (its budget, its cap,
// its idempotency), with the API's refusals shown on the form in words and with the API's status.
describe.each(testDialects())('starting a job from the dashboard on %s', (dialect) => {
  let t: TestApp;
  let browser: DashboardClient;
  let jobsUrl = '';
  beforeAll(async () => {
    ({ t, browser } = await signedInDashboard(dialect, {
      AGENTJOBS_MAX_ACTIVE_JOBS: '3',
      AGENTJOBS_RATE_LIMIT_PER_HOUR: '5',
    }));
    await t.store.projects.update(t.project.id, {
      allowedModels: ['anthropic:claude-sonnet-4-5', 'openai:gpt-5'],
    });
    jobsUrl = `/ui/projects/${t.project.id}/jobs`;
  });
  afterAll(() => t.close());

  const jobCount = async () => (await t.store.jobs.list(t.project.id, { limit: 100 })).jobs.length;

  it('invites a first job on the empty page, and still names the API', async () => {
    const page = await browser.get(jobsUrl);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Start the first one with the form above');
    expect(page.body).toContain(`POST /v2/agent/${t.project.id}/job`);
    expect(formKey(page.body)).toMatch(/^[0-9a-f-]{36}$/);
    // A model choice because the project allows two; a draft box because it opens pull requests.
    expect(page.body).toContain('<option value="openai:gpt-5">');
    expect(page.body).toContain('name="draft"');
    expect(page.body).toContain(`name="baseRef" value="${t.project.baseBranch}"`);
  });

  it('hides the model and draft fields when the project offers no choice', async () => {
    const other = await t.store.projects.create({
      name: 'Push',
      repository: '/srv/push.git',
      publish: 'push',
    });
    const page = await browser.get(`/ui/projects/${other.id}/jobs`);
    expect(page.body).toContain('name="prompt"');
    expect(page.body).not.toContain('name="model"');
    expect(page.body).not.toContain('name="draft"');
  });

  it('starts a job with the chosen fields and opens its page', async () => {
    const page = await browser.get(jobsUrl);
    const response = await browser.post(jobsUrl, {
      prompt: 'Add a FAQ page\r\nwith two questions',
      model: 'openai:gpt-5',
      baseRef: 'release',
      draft: 'on',
      idempotencyKey: formKey(page.body),
    });
    expect(response.status).toBe(303);
    const jobId = /\/jobs\/([^/?]+)$/.exec(response.location ?? '')?.[1] ?? '';
    const job = await t.store.jobs.get(t.project.id, jobId);
    expect(job).toMatchObject({
      prompt: 'Add a FAQ page\nwith two questions',
      model: 'openai:gpt-5',
      baseRef: 'release',
      status: 'active',
    });
    const jobPage = await browser.get(response.location ?? '');
    expect(jobPage.status).toBe(200);
    expect(jobPage.body).toContain('data-events-url');
  });

  it('makes one job of a double submit, also when both arrive at once', async () => {
    const before = await jobCount();
    const page = await browser.get(jobsUrl);
    const form = { prompt: 'Fix the typo on the home page', idempotencyKey: formKey(page.body) };
    const [first, second] = await Promise.all([browser.post(jobsUrl, form), browser.post(jobsUrl, form)]);
    const third = await browser.post(jobsUrl, form);
    expect([first.status, second.status, third.status]).toEqual([303, 303, 303]);
    expect(second.location).toBe(first.location);
    expect(third.location).toBe(first.location);
    expect(await jobCount()).toBe(before + 1);
    // A new rendering of the form is a new intent: it carries a key of its own.
    expect(formKey((await browser.get(jobsUrl)).body)).not.toBe(form.idempotencyKey);
  });

  it('shows an empty prompt, a bad branch and a model not allowed on their fields', async () => {
    const before = await jobCount();
    const empty = await browser.post(jobsUrl, { prompt: '  \r\n ', idempotencyKey: 'k-empty' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatch(
      /aria-describedby="h-j-prompt" aria-invalid="true">[\s\S]*<strong class="field-error">Write what the agent should do\.<\/strong>/,
    );
    const branch = await browser.post(jobsUrl, {
      prompt: 'Do it',
      baseRef: 'bad..name',
      idempotencyKey: 'k-branch',
    });
    expect(branch.status).toBe(400);
    expect(branch.body).toContain('Not a branch name git accepts: it must not contain');
    expect(branch.body).toContain('value="bad..name"');
    const model = await browser.post(jobsUrl, {
      prompt: 'Do it',
      model: 'openai:gpt-4o-mini',
      idempotencyKey: 'k-model',
    });
    expect(model.status).toBe(422);
    expect(model.body).toContain('This project does not allow that model');
    // What was typed stays in the form.
    expect(model.body).toContain('>Do it</textarea>');
    expect(await jobCount()).toBe(before);
  });

  it('takes a prompt as long as the prompt limit, however many bytes it is (no API body in between)', async () => {
    // 32,000 characters pass the prompt's length check; as JSON for the API they would exceed 64 KiB,
    // but the dashboard calls the create operation itself, so only the prompt's own limit applies.
    // A project of its own, so that the budget and the cap of the next tests are untouched.
    const other = await t.store.projects.create({ name: 'Long prompts', repository: '/srv/long.git' });
    const otherJobs = `/ui/projects/${other.id}/jobs`;
    const response = await browser.post(otherJobs, { prompt: '€'.repeat(32_000), idempotencyKey: 'k-big' });
    expect(response.status).toBe(303);
    const [big] = (await t.store.jobs.list(other.id, { limit: 1 })).jobs;
    expect(big?.prompt).toHaveLength(32_000);
    const longer = await browser.post(otherJobs, { prompt: '€'.repeat(32_001), idempotencyKey: 'k-bigger' });
    expect(longer.status).toBe(400);
    expect(longer.body).toContain('The prompt must be at most 32000 characters');
  });

  it('says so when the project has as many jobs running as it may (the API’s cap)', async () => {
    // Two active jobs from the earlier tests; a third fills the cap of 3.
    const filler = await browser.post(jobsUrl, { prompt: 'Third', idempotencyKey: 'k-third' });
    expect(filler.status).toBe(303);
    const refused = await browser.post(jobsUrl, { prompt: 'Fourth', idempotencyKey: 'k-fourth' });
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('role="alert" id="new-job-error"');
    expect(refused.body).toContain('as many jobs running as it may');
    expect(refused.body).toContain('>Fourth</textarea>');
  });

  it('spends the API’s hourly budget, and says when it is spent', async () => {
    // Three creates so far spent 3 of 5 (the refused fourth spent one too: the API counts
    // requests that reach the create); archive the jobs so the cap does not answer first.
    for (const job of (await t.store.jobs.list(t.project.id, { limit: 100 })).jobs)
      await t.store.jobs.archive(t.project.id, job.id);
    const answers: number[] = [];
    for (let i = 0; i < 3; i++)
      answers.push(
        (await browser.post(jobsUrl, { prompt: `Budget ${i}`, idempotencyKey: `k-budget-${i}` })).status,
      );
    expect(answers.at(-1)).toBe(429);
    const spent = await browser.post(jobsUrl, { prompt: 'One more', idempotencyKey: 'k-budget-x' });
    expect(spent.status).toBe(429);
    expect(spent.body).toContain('used its budget of jobs and follow-ups for this hour');
    // The API's clients see the same budget spent.
    const api = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/job`,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      payload: { prompt: 'From the API' },
    });
    expect(api.statusCode).toBe(429);
    expect(api.json().code).toBe('rate_limited');
    // A follow-up from the dashboard is held to the same budget, and says so on the job's page.
    const job = (await t.store.jobs.list(t.project.id, { limit: 1 })).jobs[0];
    if (!job) throw new Error('expected a job');
    const followUp = await browser.post(`/ui/projects/${t.project.id}/jobs/${job.id}/follow-up`, {
      prompt: 'Also fix the footer',
    });
    expect(followUp.status).toBe(429);
    expect(followUp.body).toContain('used its budget of jobs and follow-ups for this hour');
    expect(followUp.body).toContain('>Also fix the footer</textarea>');
    const events = await t.store.events.list(job.id, 0, 100);
    expect(
      events.some((event) => event.type === 'message' && event.data.text === 'Also fix the footer'),
    ).toBe(false);
  });

  it('refuses a form without its CSRF token, and makes nothing', async () => {
    const before = await jobCount();
    const forged = await browser.postWithoutToken(jobsUrl, { prompt: 'Forged', idempotencyKey: 'k-forged' });
    expect(forged.status).toBe(403);
    expect(await jobCount()).toBe(before);
  });

  it('knows no in-process credential: the header that once carried one grants nothing', async () => {
    for (const value of ['', 'guess', 'x'.repeat(43)]) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/v2/agent/${t.project.id}/job`,
        headers: { 'x-agentjobs-in-process': value, 'content-type': 'application/json' },
        payload: { prompt: 'Sneaky' },
      });
      expect(response.statusCode).toBe(401);
    }
  });
});
