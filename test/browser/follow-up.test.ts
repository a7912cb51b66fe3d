import { describe, expect, it } from 'vitest';
import { hasChromium, screenshot } from '../support/chromium.js';
import { signInWithLocalProject, useChromiumServer } from '../support/chromium-server.js';
import { partsOf } from '../support/use-fixture.js';

const PASSWORD = 'follow-up browser password';

// Issue 37: after a follow-up, the job's title (named by its first run) and its latest summary (the
// follow-up's answer) must not stand side by side as if one described the other. The job page
// shows each prompt under its own heading with the summary of the run that answered it.
describe.skipIf(!hasChromium)('a job page after a follow-up, in Chromium', () => {
  const chromium = useChromiumServer({ name: 'follow-up', password: PASSWORD });
  const { model, server, page } = partsOf(chromium, 'model', 'server', 'page');

  it('shows each prompt with its own run’s summary, and no lone summary beside the title', async () => {
    const projectId = await signInWithLocalProject(page, server.url, PASSWORD, chromium.bare);
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n\nAsk us.\n' } }] },
      { text: 'Add an FAQ\n\nI added faq.md with one question.' },
    ]);
    await page.goto(`${server.url}/ui/projects/${projectId}/jobs`);
    await page.getByLabel('What should the agent do?').fill('Add an FAQ page');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.waitForURL(/\/jobs\/[\w-]+$/);
    await page.locator('#job-status .badge.completed').waitFor({ timeout: 30_000 });

    model.setScript([{ text: 'Answered the follow-up' }]);
    await page.getByLabel('Another instruction for the agent').fill('Is the FAQ linked from the README?');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    await page.waitForLoadState();
    await page.locator('#job-prompts dd', { hasText: 'Answered the follow-up' }).waitFor({ timeout: 30_000 });
    await page.locator('#job-status .badge.completed').waitFor({ timeout: 30_000 });

    const status = page.locator('#job-summary section', {
      has: page.getByRole('heading', { name: 'Status' }),
    });
    expect(await status.locator('dt').allTextContents()).toContain('Title');
    expect(await status.locator('dd').allTextContents()).toContain('Add an FAQ');
    expect(await status.locator('dt').allTextContents()).not.toContain('Summary');

    const turns = page.locator('#job-prompts article');
    expect(await turns.count()).toBe(2);
    expect(await turns.nth(0).getByRole('heading').textContent()).toMatch(
      /^Prompt, \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    expect(await turns.nth(0).locator('dd').allTextContents()).toEqual([
      'Add an FAQ page',
      'Add an FAQ\n\nI added faq.md with one question.',
    ]);
    expect(await turns.nth(1).getByRole('heading').textContent()).toMatch(/^Follow-up, \d{4}-\d\d-\d\d/);
    expect(await turns.nth(1).locator('dd').allTextContents()).toEqual([
      'Is the FAQ linked from the README?',
      'Answered the follow-up',
    ]);
    await screenshot(page, 'job-follow-up');
  });
});
