import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launch, screenshot } from '../support/chromium.js';
import { dashboardCookie, git } from '../support/e2e.js';
import { useDemoServer } from '../support/scripted-server.js';

const PASSWORD = 'demo conflicts admin password';
const identity = ['-c', 'user.name=Upstream', '-c', 'user.email=up@example.com'];

// A newcomer's conflict with the demo model (issue 37): the built server with AGENTJOBS_MODEL=demo
// on a local repository. A follow-up after main moved resolves the conflict plainly (both sides
// kept); one it cannot resolve fails saying so and naming the ways forward, and the failed job's
// page still shows its diff.
describe.skipIf(!hasChromium)('conflicts with the demo model, in Chromium', () => {
  const scripted = useDemoServer('demo-conflicts', PASSWORD, {
    files: { 'docs/usage.md': '# Usage\n\nRun `acme`.\n' },
  });
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const [name, value] = (await dashboardCookie(scripted.server.url, PASSWORD))
      .split('; ')
      .map((pair) => pair.split('='))
      .find(([cookie]) => cookie === 'agentjobs_session') as [string, string];
    await context.addCookies([{ name, value, url: scripted.server.url }]);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A commit on main in the working copy, as a person working there would make. */
  const commitOnMain = (file: string, content: string) => {
    git(scripted.repo, 'checkout', '-q', 'main');
    fs.writeFileSync(`${scripted.repo}/${file}`, content);
    git(scripted.repo, 'add', '-A');
    git(scripted.repo, ...identity, 'commit', '-q', '-m', `Change ${file} on main`);
  };

  const followUp = async (jobId: string, prompt: string) => {
    const sent = await scripted.api.call('POST', `/job/${jobId}/message`, { prompt });
    expect(sent.status).toBe(200);
    return scripted.api.waitUntil(jobId, (job) => job.status !== 'active', 60_000);
  };

  it('resolves a conflict by keeping both sides, and says so', { timeout: 120_000 }, async () => {
    const { api, repo } = scripted;
    const created = await api.call('POST', '/job', {
      prompt: 'Add a FAQ page that answers how to install the CLI, and link it from the README',
    });
    const job = await api.waitUntil(created.job.id, (each) => each.status !== 'active', 60_000);
    expect(job.status).toBe('completed');
    // Main adds its own link where the job added its own.
    commitOnMain(
      'README.md',
      '# Acme docs\n\n- [Install the CLI](docs/install.md)\n- [Usage](docs/usage.md)\n',
    );

    const resolved = await followUp(job.id, 'Resolve the conflicts with main');
    expect(resolved).toMatchObject({ status: 'completed', error: null });
    expect(resolved.summary).toMatch(
      /^Demo: resolve the conflicts\n\nThe demo model resolved the merge conflicts plainly, keeping both sides of each, in README\.md/,
    );
    const readme = git(repo, 'show', `${resolved.source.ref}:README.md`);
    expect(readme).toContain('- [FAQ](docs/faq.md)');
    expect(readme).toContain('- [Usage](docs/usage.md)');
    expect(readme).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)/m);
  });

  it('fails a conflict it cannot resolve with the ways forward, and the page shows the diff', {
    timeout: 120_000,
  }, async () => {
    const { api, server, projectId } = scripted;
    const created = await api.call('POST', '/job', { prompt: 'Add a "Limits" page' });
    const job = await api.waitUntil(created.job.id, (each) => each.status !== 'active', 60_000);
    expect(job.status).toBe('completed');
    // A line too long for the demo model to read whole, where the job's link went.
    commitOnMain(
      'README.md',
      `# Acme docs\n\n- [Install the CLI](docs/install.md)\n- [Usage](docs/usage.md)\n- ${'long '.repeat(600)}\n`,
    );

    const failed = await followUp(job.id, 'Resolve the conflicts with main');
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('checks_failed');
    expect(failed.error?.message).toContain('the demo model cannot resolve these conflicts');
    expect(failed.error?.message).toContain('set ANTHROPIC_API_KEY');
    expect(failed.error?.message).toContain(`git switch ${job.source.ref} && git merge main`);

    await page.goto(`${server.url}/ui/projects/${projectId}/jobs/${job.id}`);
    const changes = page.locator('section', { has: page.locator('h2', { hasText: 'Changes' }) });
    await expect(changes.textContent()).resolves.not.toContain('cannot be read');
    await expect(changes.textContent()).resolves.toContain('README.md');
    await expect(page.locator('#job-status').textContent()).resolves.toContain('failed');
    // A job that is over has no step running "now" in its plan.
    expect(await page.locator('ul.plan li').count()).toBeGreaterThan(0);
    expect(await page.locator('ul.plan .badge').count()).toBe(0);
    // The long line of the diff wraps: nothing of it is cut at the right or needs a scroll.
    const cut = await page.$$eval('pre.diff span', (spans) =>
      spans
        .filter((span) => span.scrollWidth > span.clientWidth + 1)
        .map((span) => span.textContent?.slice(0, 40)),
    );
    expect(cut).toEqual([]);
    const diff = await page
      .locator('pre.diff')
      .evaluate((pre) => ({ scroll: pre.scrollWidth, client: pre.clientWidth }));
    expect(diff.scroll).toBeLessThanOrEqual(diff.client + 1);
    await screenshot(page, 'demo-conflict-failed-job');
  });
});
