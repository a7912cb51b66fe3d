import { describe, expect, it } from 'vitest';
import { dashboardCookie } from '../support/e2e.js';
import { useDemoServer } from '../support/scripted-server.js';

const PASSWORD = 'failed checks admin password';

// Checks that fail under the `draft` policy (issue 37): the built server with the demo model and a
// check command that always fails. The pull request keeps the work's title, its description holds
// the check's output as a code block, it is a draft, and the job's `draft` says so as the host does.
describe('failing checks under the draft policy, end to end', () => {
  const scripted = useDemoServer('failed-checks-draft', PASSWORD, {
    project: [
      '--check-command',
      "echo 'spelling: teh (docs/faq.md)'; echo 'spelling: recieve (README.md)'; exit 1",
      '--on-check-failure',
      'draft',
    ],
  });

  it('keeps the title, puts the output in a code block, and marks the pull request and the job as a draft', {
    timeout: 120_000,
  }, async () => {
    const { api, server } = scripted;
    const created = await api.call('POST', '/job', {
      prompt: 'Add a FAQ page that answers how to install the CLI, and link it from the README',
    });
    const job = await api.waitUntil(created.job.id, (each) => each.status !== 'active', 90_000);
    expect(job).toMatchObject({ status: 'completed', draft: true, title: 'Demo: add the page “FAQ”' });
    expect(job.checks?.status).toBe('failed');

    const cookie = await dashboardCookie(server.url, PASSWORD);
    const pull = await (await fetch(job.prLink ?? '', { headers: { cookie } })).text();
    expect(pull).toContain('Demo: add the page “FAQ”');
    expect(pull).not.toContain('checks found problems</h1>');
    expect(pull).toContain('agentjobs/'); // the branch line, which says when it is a draft
    expect(pull).toMatch(/ → main · draft · opened/);
    // The two lines of output stay two lines, in a code block.
    expect(pull).toMatch(
      /<pre[^>]*><code[^>]*>[^<]*spelling: teh \(docs\/faq\.md\)\nspelling: recieve \(README\.md\)/,
    );
  });
});
