/**
 * Stored text the dashboard renders as Markdown (a pull request's description, which holds the
 * job's prompt) that micromark or the HTML steps after it choke on: the page answers 200 at once,
 * with the text shown escaped, and the event loop never stalls meanwhile. Before, a prompt of
 * 31,000 `>` made the page answer 500 for good (a stack overflow in hast-util-to-html), and a few
 * thousand `*` froze the process for seconds on every view.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSignedInDashboard } from '../support/web-session.js';

/** Far above any pause a busy machine makes, far below what rendering cost on the event loop. */
const MAX_LAG_MS = 2_000;

describe('the dashboard on hostile Markdown', () => {
  const { t, browser } = useSignedInDashboard('sqlite');
  let jobId: string;
  beforeAll(async () => {
    const job = await t.makeJob('Describe it');
    jobId = job.id;
  });

  /** The pull request page for a description, and the longest the event loop waited for it. */
  async function viewPull(branch: string, body: string) {
    const { pullRequest } = await t.store.pullRequests.openOrUpdate({
      projectId: t.project.id,
      jobId,
      headBranch: branch,
      baseBranch: 'main',
      title: 'A hostile description',
      body,
      draft: false,
      headSha: '0'.repeat(40),
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    try {
      const page = await browser.get(`/ui/projects/${t.project.id}/pulls/${pullRequest.number}`);
      const description = /<div class="markdown" id="pull-body">([\s\S]*?)<\/div><\/section>/.exec(
        page.body,
      )?.[1];
      return { page, description: description ?? '', lagMs: delay.max / 1e6 };
    } finally {
      delay.disable();
    }
  }

  it('shows a prompt of 31,000 nested block quotes as escaped text, with a 200', async () => {
    const { page, description, lagMs } = await viewPull('agentjobs/quotes', `${'>'.repeat(31_000)} word`);
    expect(page.status).toBe(200);
    expect(description).toMatch(/^<pre class="plain">(&gt;){31000} word<\/pre>$/);
    expect(lagMs).toBeLessThan(MAX_LAG_MS);
  });

  it('renders a run of thousands of emphasis markers off the event loop', async () => {
    const stars = '*'.repeat(4_000);
    const { page, description, lagMs } = await viewPull('agentjobs/stars', `${stars}a${stars}`);
    expect(page.status).toBe(200);
    expect(description).toContain('a');
    expect(lagMs).toBeLessThan(MAX_LAG_MS);
  });

  it('still renders an ordinary description as HTML', async () => {
    const { description } = await viewPull('agentjobs/plain', '## Changed\n\n- **one** page\n');
    expect(description).toContain('<h2>Changed</h2>');
    expect(description).toContain('<li><strong>one</strong> page</li>');
  });
});
