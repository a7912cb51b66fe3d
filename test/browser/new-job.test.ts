/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, screenshot } from '../support/chromium.js';
import { mergeIntoMain, signInWithLocalProject, useChromiumServer } from '../support/chromium-server.js';
import { git } from '../support/e2e.js';
import { makeGate } from '../support/gate.js';
import { heldUntil } from '../support/scripted-model.js';
import { partsOf } from '../support/use-fixture.js';

const PASSWORD = 'new job browser password';

// A new user's first job without leaving the browser: sign in, make a project on a bare
// repository, start a job from the jobs page, watch it finish live, merge its pull request into
// main; then a double submit that makes one job, and the form's refusals (the active-job cap, an
// empty prompt) shown on the form.
describe.skipIf(!hasChromium)('starting a job from the dashboard in Chromium', () => {
  const chromium = useChromiumServer({
    name: 'new-job',
    password: PASSWORD,
    env: { AGENTJOBS_MAX_ACTIVE_JOBS: '1' },
  });
  const { model, server, page } = partsOf(chromium, 'model', 'server', 'page');
  let projectId = '';
  /** Every response the browser got with a 4xx or 5xx status that no test step asked for. */
  const unexpected: string[] = [];
  let expectRefusal = false;

  beforeAll(() => {
    page.on('response', (response) => {
      if (response.status() >= 400 && !expectRefusal)
        unexpected.push(`${response.status()} ${response.url()}`);
    });
  });

  const jobsUrl = () => `${server.url}/ui/projects/${projectId}/jobs`;
  const prompt = () => page.getByLabel('What should the agent do?');
  const startButton = () => page.getByRole('button', { name: 'Start job' });

  it('signs in and makes a project on a bare repository', async () => {
    projectId = await signInWithLocalProject(page, server.url, PASSWORD, chromium.bare);
    expect(projectId).not.toBe('');
  });

  it('starts a job from the jobs page, watches it complete and merges its pull request', async () => {
    const { opened: gate, open: release } = makeGate();
    model.setScript([
      heldUntil(gate, {
        toolCalls: [
          {
            name: 'write_file',
            input: { path: 'faq.md', content: '# FAQ\n\n## How do I install it?\n\nRun the installer.\n' },
          },
        ],
      }),
      { text: 'Add an FAQ\n\nI added **faq.md** with one question.' },
    ]);
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.waitForURL(jobsUrl());
    expect(await page.locator('#no-jobs').textContent()).toContain('Start the first one with the form above');
    await prompt().fill('Add an FAQ page that answers how to install it');
    await screenshot(page, 'new-job');
    await startButton().click();
    await page.waitForURL(/\/jobs\/[\w-]+$/);
    expect(await page.locator('#job-status').textContent()).toContain('active');
    expect(await page.locator('#job-pr').textContent()).toContain('none yet');

    release();
    await page.locator('#job-status .badge.completed').waitFor({ timeout: 30_000 });
    // The write shows its path and its text, not a JSON string.
    const write = page.locator('#activity li', { hasText: 'write_file' }).first();
    expect(await write.locator('code').textContent()).toBe('faq.md');
    expect(await write.locator('pre').textContent()).toContain(
      '## How do I install it?\n\nRun the installer.',
    );

    await page.locator('#job-pr a').click();
    await page.waitForURL('**/pulls/1');
    // The description is Markdown rendered: the summary's bold is bold.
    expect(await page.locator('#pull-body strong').first().textContent()).toBe('faq.md');
    await mergeIntoMain(page, chromium.bare);
    expect(git(chromium.bare, 'show', 'main:faq.md')).toContain('Run the installer.');
  });

  it('makes one job of a form sent twice', async () => {
    // This job stays active (its model never answers), which fills the project's cap of 1.
    model.setScript([heldUntil(new Promise<void>(() => {}), { text: 'never' })]);
    await page.goto(jobsUrl());
    await prompt().fill('Fix the typo on the home page');
    // What a double click sends: the same form, token and key, twice, both at once.
    const landed = await page.evaluate(async () => {
      const form = document.querySelector<HTMLFormElement>('#new-job form');
      if (!form) throw new Error('no form');
      const send = () =>
        fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form) as never) });
      const answers = await Promise.all([send(), send()]);
      return answers.map((answer) => `${answer.status} ${answer.url}`);
    });
    expect(landed[0]).toMatch(/^200 .*\/jobs\/[\w-]+$/);
    expect(landed[1]).toBe(landed[0]);
    await page.goto(jobsUrl());
    expect(await page.locator('tbody tr', { hasText: 'Fix the typo on the home page' }).count()).toBe(1);
  });

  it('shows the active-job cap and an empty prompt on the form', async () => {
    expectRefusal = true;
    await prompt().fill('Add a changelog page');
    const capped = page.waitForResponse((response) => response.request().method() === 'POST');
    await startButton().click();
    expect((await capped).status()).toBe(429);
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).toContain('as many jobs running as it may');
    expect(await prompt().inputValue()).toBe('Add a changelog page');

    await prompt().fill('   ');
    const empty = page.waitForResponse((response) => response.request().method() === 'POST');
    await startButton().click();
    expect((await empty).status()).toBe(400);
    await page.waitForLoadState();
    expect(await prompt().getAttribute('aria-invalid')).toBe('true');
    const error = page.locator('#h-j-prompt .field-error');
    expect(await error.textContent()).toBe('Write what the agent should do.');
    // Red (the stylesheet's --bad), not the hint's grey.
    expect(await error.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(207, 34, 46)');
    await screenshot(page, 'new-job-error');
    expectRefusal = false;
  });

  it('asked for nothing that was not there (no favicon 404)', () => {
    expect(unexpected).toEqual([]);
  });
});
