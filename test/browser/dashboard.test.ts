/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { hasChromium, screenshot } from '../support/chromium.js';
import { mergeIntoMain, useChromiumServer } from '../support/chromium-server.js';
import { git, jobApi } from '../support/e2e.js';
import { makeGate } from '../support/gate.js';
import { heldUntil } from '../support/scripted-model.js';
import { partsOf } from '../support/use-fixture.js';

const PASSWORD = 'browser test password';

// The dashboard in a real browser against the built server: sign in, make a project and a key,
// watch a job finish live, merge its pull request, and the refusals around them.
describe.skipIf(!hasChromium)('dashboard in Chromium', () => {
  const chromium = useChromiumServer({ name: 'browser', password: PASSWORD });
  const { database, model, server, context, page } = partsOf(
    chromium,
    'database',
    'model',
    'server',
    'context',
    'page',
  );
  // Filled in as the story goes on.
  let projectId = '';
  let key = '';
  let jobId = '';

  const { call: api } = jobApi(() => ({ url: server.url, projectId, key }));

  it('refuses a wrong password, then signs in', async () => {
    await page.goto(`${server.url}/ui`);
    expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
    await page.getByLabel('Admin password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That password is not right.');
    await screenshot(page, 'sign-in');

    await page.getByLabel('Admin password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/ui/projects');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Projects');
    await screenshot(page, 'projects-empty');
  });

  it('creates a project on a local repository', async () => {
    await page.getByRole('link', { name: 'New project' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Handbook');
    await page.getByLabel('Code host').selectOption('local');
    await page.getByLabel('Repository').fill(chromium.bare);
    await screenshot(page, 'project-new');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/ui\/projects\/[^/]+\/keys/);
    projectId = /\/ui\/projects\/([^/]+)\/keys/.exec(page.url())?.[1] ?? '';
    expect(projectId).not.toBe('');
    expect(await page.getByRole('status').textContent()).toContain('Project created');
  });

  it('makes a key and shows it once', async () => {
    await page.getByLabel('Name', { exact: true }).fill('docs bot');
    await page.getByLabel('Expires').selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    key = ((await page.locator('#new-key').textContent()) ?? '').trim();
    expect(key).toMatch(/^ajs_\w+$/);
    expect(await page.getByRole('alert').textContent()).toContain('will not be shown again');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.getByRole('button', { name: /Copied|Press Ctrl\+C/ }).count()).toBe(1);
    await screenshot(page, 'api-key-created');
    await page.reload();
    expect(await page.content()).not.toContain(key);
  });

  it('watches a job created with the key reach completed without reloading', async () => {
    const { opened: gate, open: release } = makeGate();
    model.setScript([
      {
        toolCalls: [
          { name: 'update_plan', input: { items: [{ content: 'Write the FAQ', status: 'in_progress' }] } },
        ],
      },
      heldUntil(gate, {
        toolCalls: [
          { name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n\nAsk us anything.\n' } },
        ],
      }),
      { text: 'Add an FAQ\n\nI added faq.md.' },
    ]);
    const created = await api('POST', '/job', { prompt: 'Add an FAQ page' });
    expect(created.status).toBe(201);
    jobId = created.job.id;

    await page.goto(`${server.url}/ui/projects/${projectId}/jobs`);
    await page.getByRole('link', { name: 'Add an FAQ page' }).click();
    await page.waitForURL(`**/jobs/${jobId}`);
    expect(await page.locator('#job-status').textContent()).toContain('active');
    // A marker on the window: it survives only if the page is never reloaded.
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'still here';
    });
    await page.locator('#activity li', { hasText: 'update_plan' }).first().waitFor();
    release();
    await page.locator('#job-status .badge.completed').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
    expect(await page.locator('#activity').textContent()).toContain('write_file');
    expect(await page.locator('ul.plan').textContent()).toContain('Write the FAQ');
    const prLink = (await page.locator('#job-pr a').getAttribute('href')) ?? '';
    expect(prLink).toBe(`${server.url}/ui/projects/${projectId}/pulls/1`);
    expect(await page.locator('pre.diff').textContent()).toContain('+Ask us anything.');
    await screenshot(page, 'job');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'job-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('opens the pull request and merges it into the base branch', async () => {
    await page.locator('#job-pr a').click();
    await page.waitForURL('**/pulls/1');
    expect(await page.getByRole('heading', { level: 1 }).first().textContent()).toContain('Handbook');
    expect(await page.locator('pre.diff').textContent()).toContain('+# FAQ');
    await screenshot(page, 'pull-request');
    await mergeIntoMain(page, chromium.bare);
    expect(git(chromium.bare, 'show', 'main:faq.md')).toContain('Ask us anything.');
  });

  it('refuses a form posted without its CSRF token', async () => {
    await page.goto(`${server.url}/ui/projects/${projectId}/jobs/${jobId}`);
    await page.evaluate(() => {
      for (const input of document.querySelectorAll('form input[name="_csrf"]')) input.remove();
    });
    await page.getByLabel('Another instruction for the agent').fill('This should never arrive');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This form has expired');
    const events = await fetch(`${server.url}/v2/agent/${projectId}/job/${jobId}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(JSON.stringify(await events.json())).not.toContain('This should never arrive');
  });

  it('revokes the key, and the API refuses it', async () => {
    await page.goto(`${server.url}/ui/projects/${projectId}/keys`);
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, revoke “docs bot”' }).click();
    await page.waitForURL('**/keys?notice=revoked');
    expect(await page.locator('td .badge').first().textContent()).toBe('revoked');
    await screenshot(page, 'api-keys');
    const refused = await api('GET', `/job/${jobId}`);
    expect(refused.status).toBe(401);
  });

  it('sends an expired session back to sign in', async () => {
    const db = openDb({ url: database.url });
    try {
      await db.kysely
        .updateTable('admin_sessions')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
    } finally {
      await db.close();
    }
    await page.goto(`${server.url}/ui/projects/${projectId}/jobs`);
    expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
    expect(await page.getByRole('status').textContent()).toContain('Your session expired');
    await page.getByLabel('Admin password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/ui/projects/${projectId}/jobs`);
    await screenshot(page, 'jobs');
  });

  it('keeps each event checkbox beside its label, and styles number fields like text fields', async () => {
    for (const width of [1280, 390, 560]) {
      await page.setViewportSize({ width, height: 860 });
      await page.goto(`${server.url}/ui/projects/${projectId}/webhooks`);
      const pairs = await page.$$eval('fieldset input[type=checkbox]', (boxes) =>
        boxes.map((box) => {
          const label = document.querySelector(`label[for="${box.id}"]`);
          const a = box.getBoundingClientRect();
          const b = label?.getBoundingClientRect();
          return {
            id: box.id,
            sameLine: b !== undefined && b.top < a.bottom && a.top < b.bottom && b.left >= a.right,
          };
        }),
      );
      expect(pairs.length).toBeGreaterThan(3);
      expect(pairs.filter((pair) => !pair.sameLine).map((pair) => `${pair.id} at ${width}px`)).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${server.url}/ui/projects/${projectId}/settings`);
    const style = (selector: string) =>
      page.$eval(selector, (input) => {
        const computed = getComputedStyle(input);
        return [computed.borderTopColor, computed.borderRadius, computed.paddingLeft, computed.fontSize];
      });
    expect(await style('input[type=number]')).toEqual(await style('input[type=text]'));
  });

  it('creates an automation from a template and runs it now', async () => {
    await page.goto(`${server.url}/ui/projects/${projectId}/automations`);
    await page.click('a[href$="/new?template=fix-typos"]');
    expect(await page.inputValue('#a-cron')).toBe('0 6 * * 3');
    await page.fill('#a-name', 'Weekly proofreading');
    await page.click('button:has-text("Create automation")');
    await page.waitForURL(/notice=created/);
    await page.click('button:has-text("Run now")');
    await page.waitForURL(/notice=ran/);
    expect(await page.textContent('main')).toContain('Run now started job');
    await screenshot(page, 'automation');
    await page.goto(`${server.url}/ui/projects/${projectId}/automations`);
    expect(await page.textContent('main')).toContain('every Wednesday 06:00 UTC');
    await screenshot(page, 'automations');
  });

  it('shows no console errors and breaks no CSP rule', async () => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    for (const url of [
      '/ui/projects',
      `/ui/projects/${projectId}/jobs/${jobId}`,
      `/ui/projects/${projectId}/settings`,
      `/ui/projects/${projectId}/automations/new`,
    ])
      await page.goto(`${server.url}${url}`, { waitUntil: 'networkidle' });
    expect(problems).toEqual([]);
    await screenshot(page, 'project-settings');
  });
});
