import { describe, expect, it } from 'vitest';
import { automationTemplate } from '../../src/domain/automation-templates.js';
import { testDialects } from '../support/db.js';
import { DashboardClient, useSignedInDashboard } from '../support/web-session.js';

/** The fields a browser sends for a manual automation; a test overrides what it is about. */
const manualForm = (fields: Record<string, string> = {}) => ({
  name: 'Weekly tidy',
  triggerType: 'manual',
  cron: '',
  timezone: '',
  repository: '',
  branch: 'main',
  paths: '',
  prompt: 'Tidy the docs.',
  allowedAuthors: '',
  group: 'on',
  ...fields,
});

describe.each(testDialects())('the Automations tab on %s', (dialect) => {
  // One run a day, so the second Run now meets the limit.
  const { t, browser } = useSignedInDashboard(dialect, { AGENTJOBS_AUTOMATION_RUNS_PER_DAY: '1' });

  const tab = () => `/ui/projects/${t.project.id}/automations`;

  it('is a tab of the project, lists the templates and points at the hook settings', async () => {
    const page = await browser.get(tab());
    expect(page.status).toBe(200);
    expect(page.body).toContain('No automations yet');
    expect(page.body).toContain(`href="${tab()}" aria-current="page">Automations</a>`);
    expect(page.body).toContain(`href="${tab()}/new?template=update-docs-from-code"`);
    expect(page.body).toContain(`/ui/projects/${t.project.id}/settings#code-host-webhooks`);
    // How often a repository is looked at, where the triggers are described.
    expect(page.body).toContain('Commits to a local repository are found by looking at it every 3 seconds.');
    expect(page.body).toContain('found by polling every 5 minutes.');
    expect((await browser.get(`/ui/projects/${t.project.id}/jobs`)).body).toContain('>Automations</a>');
  });

  it('creates from a template: the prompt and trigger are filled in, and can be changed', async () => {
    const template = automationTemplate('fix-broken-links');
    const form = await browser.get(`${tab()}/new?template=fix-broken-links`);
    expect(form.body).toContain('value="0 6 * * 1"');
    expect(form.body).toContain('<option value="schedule" selected>');
    // The prompt is in the textarea, escaped as text.
    expect(form.body).toContain('Find and fix broken links in the documentation');
    const created = await browser.post(tab(), {
      ...manualForm({
        name: 'Links',
        triggerType: 'schedule',
        cron: '0 9 * * 1',
        timezone: 'Europe/Berlin',
        prompt: template?.prompt ?? '',
      }),
    });
    expect(created.status).toBe(303);
    const [automation] = await t.store.automations.list(t.project.id);
    expect(automation).toMatchObject({
      name: 'Links',
      enabled: true,
      group: true,
      draft: false,
      trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
      prompt: template?.prompt,
    });
    expect(created.location).toBe(`${tab()}/${automation?.id}?notice=created`);
    const list = await browser.get(tab());
    expect(list.body).toContain('every Monday 09:00 Europe/Berlin');
    expect(list.body).toContain(`<time datetime="${automation?.nextRunAt}">`);
  });

  it('shows what is wrong by field, keeps what was typed, and saves nothing', async () => {
    const before = (await t.store.automations.list(t.project.id)).length;
    await browser.get(`${tab()}/new`);
    const badCron = await browser.post(tab(), manualForm({ triggerType: 'schedule', cron: 'every day' }));
    expect(badCron.status).toBe(422);
    expect(badCron.body).toMatch(
      /id="a-cron" name="cron" value="every day" aria-describedby="h-a-cron" aria-invalid="true"/,
    );
    expect(badCron.body).toMatch(/id="h-a-cron"><strong class="field-error">/);

    const placeholder = await browser.post(tab(), manualForm({ prompt: 'Look at {{change.nope}}' }));
    expect(placeholder.status).toBe(422);
    expect(placeholder.body).toMatch(/id="h-a-prompt"><strong class="field-error">[^<]*change\.nope/);

    const repository = await browser.post(
      tab(),
      manualForm({ triggerType: 'code_change', repository: 'product', branch: 'main' }),
    );
    expect(repository.status).toBe(422);
    expect(repository.body).toMatch(
      /id="h-a-repository"><strong class="field-error">names no context repository/,
    );

    const noName = await browser.post(tab(), manualForm({ name: ' ' }));
    expect(noName.status).toBe(400);
    expect(noName.body).toMatch(/id="h-a-name"><strong class="field-error">is required/);
    expect((await t.store.automations.list(t.project.id)).length).toBe(before);
  });

  it('edits the settings, disables and enables', async () => {
    const [automation] = await t.store.automations.list(t.project.id);
    const base = `${tab()}/${automation?.id}`;
    await browser.get(base);
    const saved = await browser.post(
      base,
      manualForm({ name: 'Tidy', allowedAuthors: 'ana\nbo', draft: 'on' }),
    );
    expect(saved.location).toBe(`${base}?notice=saved`);
    expect(await t.store.automations.get(t.project.id, automation?.id ?? '')).toMatchObject({
      name: 'Tidy',
      trigger: { type: 'manual' },
      draft: true,
      allowedAuthors: ['ana', 'bo'],
      nextRunAt: null,
    });
    const refused = await browser.post(base, manualForm({ triggerType: 'content_change', branch: 'a..b' }));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="h-a-branch"><strong class="field-error">is not a valid branch name/);
    expect((await t.store.automations.get(t.project.id, automation?.id ?? ''))?.trigger.type).toBe('manual');

    expect((await browser.post(`${base}/disable`)).location).toBe(`${base}?notice=disabled`);
    expect((await t.store.automations.get(t.project.id, automation?.id ?? ''))?.enabled).toBe(false);
    const page = await browser.get(base);
    expect(page.body).toContain('<span class="badge revoked">disabled</span>');
    expect((await browser.post(`${base}/enable`)).status).toBe(303);
    expect((await t.store.automations.get(t.project.id, automation?.id ?? ''))?.enabled).toBe(true);
  });

  it('runs now: a job and a run, then the 409 and 429 reasons, runs newest first', async () => {
    const [automation] = await t.store.automations.list(t.project.id);
    const base = `${tab()}/${automation?.id}`;
    await browser.get(base);
    const ran = await browser.post(`${base}/run`);
    expect(ran.status).toBe(303);
    const jobId = /job=([\w-]+)/.exec(ran.location ?? '')?.[1] ?? '';
    const job = await t.store.jobs.get(t.project.id, jobId);
    expect(job?.prompt).toBe('Tidy the docs.');
    const after = await browser.get(ran.location ?? '');
    expect(after.body).toContain(`Run now started job <a href="/ui/projects/${t.project.id}/jobs/${jobId}">`);

    await browser.post(`${base}/disable`);
    await browser.get(base);
    const disabled = await browser.post(`${base}/run`);
    expect(disabled.status).toBe(409);
    expect(disabled.body).toContain('Not run: the automation is disabled.');
    await browser.post(`${base}/enable`);
    await browser.get(base);
    const limited = await browser.post(`${base}/run`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toContain('Not run: the project has used its automation runs for today.');

    const page = await browser.get(base);
    const rows = [
      ...page.body.matchAll(/<tr><td><time[^>]*>[^<]*<\/time><\/td><td>manual[\s\S]*?<\/tr>/g),
    ].map((match) => match[0]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/skipped[\s\S]*<td>limit<\/td>/);
    expect(rows[1]).toMatch(/skipped[\s\S]*<td>disabled<\/td>/);
    expect(rows[2]).toMatch(/created[\s\S]*<td>-<\/td>/);
    expect(rows[2]).toContain(`/jobs/${jobId}"`);
    // Beside what each run did, what came of it so far: the job is still at work.
    expect(rows[2]).toMatch(
      /created<\/span><\/td><td><span class="badge status-running[^"]*">running<\/span>/,
    );
    expect(rows[0]).toMatch(/<span class="badge status-skipped[^"]*">skipped<\/span>/);
    // The list shows the last run and what came of it.
    expect((await browser.get(tab())).body).toMatch(/skipped<\/span> <span class="hint">limit<\/span>/);
  });

  it('fills a code-change template with a context repository the project has, and says the trigger in words', async () => {
    await t.store.contextRepositories.add({
      projectId: t.project.id,
      name: 'api',
      repository: '/srv/api.git',
      ref: null,
      host: 'local',
    });
    const form = await browser.get(`${tab()}/new?template=update-docs-from-code`);
    expect(form.body).toContain('from the template update-docs-from-code');
    expect(form.body).toContain('id="a-repository" name="repository" value="api"');
    const created = await browser.post(
      tab(),
      manualForm({
        name: 'Docs from code',
        triggerType: 'code_change',
        repository: 'api',
        branch: 'main',
        paths: 'src/**\ndocs/**',
        prompt: automationTemplate('update-docs-from-code')?.prompt ?? '',
      }),
    );
    expect(created.status).toBe(303);
    expect((await browser.get(tab())).body).toContain('code change on api/main (src/**, docs/**)');
  });

  it('takes no Run now while the server drains', async () => {
    const [automation] = await t.store.automations.list(t.project.id);
    const base = `${tab()}/${automation?.id}`;
    const runs = (await t.store.automations.runs(automation?.id ?? '', { limit: 10 })).runs.length;
    t.lifecycle.draining = true;
    try {
      await browser.get(base);
      const refused = await browser.post(`${base}/run`);
      expect(refused.status).toBe(503);
      expect(refused.body).toContain('Not run: the server is shutting down');
    } finally {
      t.lifecycle.draining = false;
    }
    expect((await t.store.automations.runs(automation?.id ?? '', { limit: 10 })).runs.length).toBe(runs);
  });

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const [automation] = await t.store.automations.list(t.project.id);
    const count = (await t.store.automations.list(t.project.id)).length;
    const forged = await browser.postWithoutToken(tab(), manualForm({ name: 'Forged' }));
    expect(forged.status).toBe(403);
    const disable = await browser.postWithoutToken(`${tab()}/${automation?.id}/disable`);
    expect(disable.status).toBe(403);
    expect((await t.store.automations.list(t.project.id)).length).toBe(count);
    expect((await t.store.automations.get(t.project.id, automation?.id ?? ''))?.enabled).toBe(true);
  });

  it('sends a signed-out visitor to sign in and runs nothing for it', async () => {
    const [automation] = await t.store.automations.list(t.project.id);
    const runs = (await t.store.automations.runs(automation?.id ?? '', { limit: 50 })).runs.length;
    const stranger = new DashboardClient(t.app);
    const page = await stranger.get(tab());
    expect(page.status).toBe(303);
    expect(page.location).toContain('/ui/sign-in');
    await stranger.get('/ui/sign-in');
    const run = await stranger.post(`${tab()}/${automation?.id}/run`);
    expect(run.location ?? '').not.toContain('job=');
    expect((await t.store.automations.runs(automation?.id ?? '', { limit: 50 })).runs.length).toBe(runs);
  });

  it('escapes a hostile name and prompt, and answers 404 for another id', async () => {
    await browser.get(`${tab()}/new`);
    const created = await browser.post(
      tab(),
      manualForm({ name: '<script>alert(1)</script>', prompt: '</textarea><img src=x onerror=alert(2)>' }),
    );
    expect(created.status).toBe(303);
    for (const url of [tab(), created.location ?? '']) {
      const page = await browser.get(url);
      expect(page.body).not.toContain('<script>alert(1)</script>');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.body).not.toContain('<img src=x');
    }
    expect((await browser.get(created.location ?? '')).body).toContain('&lt;/textarea&gt;&lt;img src=x');
    expect((await browser.get(`${tab()}/nope`)).status).toBe(404);
    await browser.get(tab());
    expect((await browser.post(`${tab()}/nope/run`)).status).toBe(404);
  });
});

describe.each(testDialects())('Run now with variables on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);

  it("asks for the prompt's variables and fills them in", async () => {
    const tab = `/ui/projects/${t.project.id}/automations`;
    await browser.get(`${tab}/new`);
    const created = await browser.post(
      tab,
      manualForm({ name: 'Release notes', prompt: 'Write the notes of {{variables.version}}.' }),
    );
    const base = (created.location ?? '').replace(/\?.*/, '');
    const id = base.split('/').at(-1) ?? '';
    expect((await browser.get(base)).body).toContain('name="variables.version"');
    const tooLong = await browser.post(`${base}/run`, { 'variables.version': 'x'.repeat(10_001) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toContain('at most 10000 characters');
    expect((await t.store.automations.runs(id, { limit: 5 })).runs).toHaveLength(0);

    const ran = await browser.post(`${base}/run`, { 'variables.version': '<v2.0>' });
    expect(ran.status).toBe(303);
    const jobId = /job=([\w-]+)/.exec(ran.location ?? '')?.[1] ?? '';
    expect((await t.store.jobs.get(t.project.id, jobId))?.prompt).toBe('Write the notes of <v2.0>.');
    expect((await browser.get(ran.location ?? '')).body).toContain('<p id="ran-job">Run now started job');

    // The second run is grouped into the job the first made: the page says so, not "started".
    const again = await browser.post(`${base}/run`, { 'variables.version': '<v2.1>' });
    expect(again.status).toBe(303);
    expect(/job=([\w-]+)/.exec(again.location ?? '')?.[1]).toBe(jobId);
    expect((await browser.get(again.location ?? '')).body).toContain(
      `<p id="ran-job">Run now added to the existing job <a href="/ui/projects/${t.project.id}/jobs/${jobId}">`,
    );
  });
});
