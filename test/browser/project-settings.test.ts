/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { hasChromium, screenshot } from '../support/chromium.js';
import { signInWithLocalProject, useChromiumServer } from '../support/chromium-server.js';
import { partsOf } from '../support/use-fixture.js';

const PASSWORD = 'project settings browser password';

// Issue 37: a local project's settings showed the GitHub App fields and every host's webhook
// steps, about 4,460 px of page. Only what applies to the project's host is shown, and the access
// fields follow the Code host select as it changes.
describe.skipIf(!hasChromium)('a local project’s settings in Chromium', () => {
  const chromium = useChromiumServer({ name: 'project-settings', password: PASSWORD });
  const { server, page } = partsOf(chromium, 'server', 'page');

  it('shows only what applies to a local project, and the host’s fields once the host changes', async () => {
    const projectId = await signInWithLocalProject(page, server.url, PASSWORD, chromium.bare);
    await page.goto(`${server.url}/ui/projects/${projectId}/settings`);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);

    expect(await page.locator('#f-appId').isVisible()).toBe(false);
    expect(await page.locator('#f-token').isVisible()).toBe(false);
    expect(await page.locator('#hook-url-github').count()).toBe(0);
    expect(await page.locator('#code-host-webhooks').textContent()).toContain('Not needed');
    // 5,003 px at 1280 px wide before; every section that applies still shows (3,691 px).
    expect(height).toBeLessThan(4000);
    await screenshot(page, 'project-settings-local');

    await page.locator('#f-host').selectOption('gitlab');
    expect(await page.locator('#f-token').isVisible()).toBe(true);
    expect(await page.locator('#f-appId').isVisible()).toBe(false);
    await page.locator('#f-host').selectOption('github');
    expect(await page.locator('#f-appId').isVisible()).toBe(true);
  });
});
