import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { useSignedInDashboard } from '../support/web-session.js';

// What a new user tripped over on the dashboard (issue 18, item 8): raw JSON tool inputs and a
// usage row per step, a Markdown description shown raw, a favicon 404 on every page, "none yet"
// on a failed job, field errors in small grey text; and the keys' default expiry.
describe.each(testDialects())('dashboard details on %s', (dialect) => {
  const { t, browser } = useSignedInDashboard(dialect);
  let job: Job;
  beforeAll(async () => {
    job = await t.makeJob('Add a FAQ');
  });

  const jobUrl = () => `/ui/projects/${t.project.id}/jobs/${job.id}`;

  it('shows tool inputs as paths and text, and no usage row per step', async () => {
    const content = '# FAQ\n\nHow do I install it?\n\n<script>alert(1)</script>\n';
    await t.store.events.append(job.id, 'tool_call', {
      tool: 'write_file',
      input: { path: 'docs/faq.md', content },
    });
    await t.store.events.append(job.id, 'tool_call', {
      tool: 'move_file',
      input: { from: 'old.md', to: 'new.md' },
    });
    await t.store.events.append(job.id, 'usage', {
      inputTokens: 1234,
      outputTokens: 56,
      cachedInputTokens: 0,
      steps: 1,
      costUsd: 0.01,
    });
    const page = await browser.get(jobUrl());
    const activity = /<ol class="activity"[\s\S]*?<\/ol>/.exec(page.body)?.[0] ?? '';
    expect(activity).toContain('<strong>write_file</strong> <code>docs/faq.md</code>');
    // The content as lines of text (escaped), not a JSON string with \n in it.
    expect(activity).toContain('# FAQ\n\nHow do I install it?\n\n&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(activity).not.toContain('\\n');
    expect(activity).not.toContain('{&quot;');
    expect(activity).toContain('<code>old.md</code> → <code>new.md</code>');
    expect(activity).not.toContain('1234 tokens');
    expect(activity.match(/<span class="kind">tool<\/span>/g)?.length).toBe(2);
    expect(activity).not.toContain('<span class="kind">usage</span>');
  });

  it('keeps only the first lines of a long text in the activity', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    await t.store.events.append(job.id, 'tool_call', {
      tool: 'edit_file',
      input: { path: 'a.md', old_text: 'x', new_text: lines },
    });
    const page = await browser.get(jobUrl());
    expect(page.body).toContain('line 8\n… 22 more lines');
    expect(page.body).not.toContain('line 9\n');
    expect(page.body).toContain('<span class="hint">old text</span> x');
  });

  it('renders a pull request description as sanitized HTML', async () => {
    const { pullRequest } = await t.store.pullRequests.openOrUpdate({
      projectId: t.project.id,
      jobId: job.id,
      headBranch: 'agentjobs/faq',
      baseBranch: 'main',
      title: 'Add a FAQ',
      body: [
        '## What changed',
        '',
        '- added **faq.md**',
        '- linked it from [the index](https://example.com/docs)',
        '',
        '<script>alert("x")</script><img src=x onerror=alert(1)>',
        '',
        '[click](javascript:alert(1))',
      ].join('\n'),
      draft: false,
      headSha: '0'.repeat(40),
    });
    const page = await browser.get(`/ui/projects/${t.project.id}/pulls/${pullRequest.number}`);
    expect(page.status).toBe(200);
    const body =
      /<div class="markdown" id="pull-body">([\s\S]*?)<\/div><\/section>/.exec(page.body)?.[1] ?? '';
    expect(body).toContain('<h2>What changed</h2>');
    expect(body).toContain('<li>added <strong>faq.md</strong></li>');
    expect(body).toContain('<a href="https://example.com/docs">the index</a>');
    expect(body).not.toMatch(/<script|onerror|javascript:|<img/i);
    expect(body).not.toContain('## What');
  });

  it('serves a favicon that every page names', async () => {
    const page = await browser.get('/ui/projects');
    const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(href).toMatch(/^\/ui\/assets\/favicon\.svg\?v=\w+$/);
    const icon = await t.app.inject({ method: 'GET', url: href });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.body).toContain('<svg');
  });

  it('says a failed job has no pull request because it failed', async () => {
    const [claimed] = await t.store.queue.claim({ owner: 'test', limit: 1, perProject: 5, leaseMs: 60_000 });
    expect(claimed?.job.id).toBe(job.id);
    await t.store.queue.fail(
      { jobId: job.id, attempt: claimed?.attempt ?? 0, owner: 'test' },
      { code: 'model_unavailable', message: 'No model is configured.' },
    );
    const page = await browser.get(jobUrl());
    expect(page.body).toContain('<dd id="job-pr">none: the job failed before publishing');
    expect(page.body).not.toContain('none yet');
  });

  it('shows a field error in red next to its field, tied to it for screen readers', async () => {
    const keys = `/ui/projects/${t.project.id}/keys`;
    await browser.get(keys);
    const refused = await browser.post(keys, { name: '', scopes: 'read', expires: '30' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/id="k-name"[^>]*aria-describedby="h-k-name" aria-invalid="true"/);
    expect(refused.body).toMatch(/<div class="hint" id="h-k-name"><strong class="field-error">/);
    const css = await t.app.inject({
      method: 'GET',
      url: /href="(\/ui\/assets\/dashboard\.css[^"]*)"/.exec(refused.body)?.[1] ?? '',
    });
    expect(css.body).toMatch(/\.field-error\{[^}]*color:var\(--bad\)/);
  });

  it('offers 90 days as the default expiry of a new key', async () => {
    const page = await browser.get(`/ui/projects/${t.project.id}/keys`);
    expect(page.body).toContain('<option value="90" selected>in 90 days</option>');
  });
});
