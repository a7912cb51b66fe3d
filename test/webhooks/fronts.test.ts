/**
 * The API and the dashboard give the same answer to the same endpoint input: both go through the
 * endpoint operations (`operations/webhook-endpoints.ts`), so a URL the rules refuse is refused with the
 * same status and the same sentence, and an accepted one is kept the same way (trimmed).
 */
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import type { DashboardClient } from '../support/web-session.js';
import { useSignedInDashboard } from '../support/web-session.js';

/** What the API answers to `form`, and what the dashboard answers to it posted as a form. */
async function bothFronts(t: TestApp, browser: DashboardClient, form: { url: string; description?: string }) {
  const api = await t.app.inject({
    method: 'POST',
    url: `/v2/agent/${t.project.id}/webhooks`,
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    payload: JSON.stringify(form),
  });
  const tab = `/ui/projects/${t.project.id}/webhooks`;
  await browser.get(tab);
  const page = await browser.post(tab, form);
  return { api: { status: api.statusCode, body: api.json() }, page };
}

const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

describe.each(testDialects())('the API and the dashboard on the same endpoint input, on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect, { AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' });

  it.each([
    ['a URL over 2,048 characters', `http://127.0.0.1:9/${'a'.repeat(2100)}`],
    ['a metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a URL with credentials', 'http://user:secret@127.0.0.1:9/hook'],
    ['a URL of blanks', '   '],
    ['an empty URL', ''],
  ])('refuses %s with the same status and words', async (_name, url) => {
    const before = await t.store.webhooks.list(t.project.id);
    const { api, page } = await bothFronts(t, browser, { url });
    expect(api.status).toBeGreaterThanOrEqual(400);
    expect(page.status).toBe(api.status);
    expect(page.body).toContain(escaped(api.body.error));
    expect(await t.store.webhooks.list(t.project.id)).toEqual(before);
  });

  it('keeps an accepted URL and description the same way, trimmed', async () => {
    const form = { url: '  http://127.0.0.1:9/trimmed  ', description: '  Chat bot  ' };
    const { api, page } = await bothFronts(t, browser, form);
    expect(api.status).toBe(201);
    expect(page.status).toBe(303);
    const kept = (await t.store.webhooks.list(t.project.id)).map(({ url, description }) => ({
      url,
      description,
    }));
    expect(kept).toEqual([
      { url: 'http://127.0.0.1:9/trimmed', description: 'Chat bot' },
      { url: 'http://127.0.0.1:9/trimmed', description: 'Chat bot' },
    ]);
  });
});
