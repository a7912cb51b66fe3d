import { describe, expect, it } from 'vitest';
import { DEMO_NOTE } from '../../src/agent/demo-change.js';
import { dashboardCookie, git } from '../support/e2e.js';
import { useDemoServer } from '../support/scripted-server.js';

const PASSWORD = 'demo model admin password';

// The built server with AGENTJOBS_MODEL=demo and no provider key in its environment: a job posted
// over HTTP runs the built-in demo model through the real tools, checks and local code host.
describe('the built-in demo model, end to end', () => {
  // No provider at all: the scripted model is started by the fixture, but nothing points at it.
  const scripted = useDemoServer('demo-model', PASSWORD);

  it('says so at start and in /healthz', async () => {
    const { server } = scripted;
    expect(server.output.join('\n')).toContain(
      'Using the built-in demo model: jobs make a small labelled change without an AI model; set ANTHROPIC_API_KEY',
    );
    expect(server.output.join('\n')).not.toContain('will fail with model_unavailable');
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', model: 'demo' });
  });

  it('completes a job with a pull request that says a demo model made its labelled page', {
    timeout: 90_000,
  }, async () => {
    const { server, repo, projectId, api } = scripted;
    const prompt = 'Add a FAQ page that answers how to install the CLI, and link it from the README';
    const created = await api.call('POST', '/job', { prompt });
    expect(created.status).toBe(201);
    expect(created.job.model).toBe('demo');
    const job = await api.waitUntil(created.job.id, (job) => job.status !== 'active', 60_000);

    expect(job).toMatchObject({ status: 'completed', model: 'demo', error: null, filesChanged: 2 });
    expect(job.usage.costUsd).toBe(0);
    expect(job.checks?.status).toBe('passed');
    expect(job.title).toBe('Demo: add the page “FAQ”');
    expect(job.summary).toContain('The agentjobs demo model made this change; no AI model was used.');
    expect(job.prLink).toBe(`${server.url}/ui/projects/${projectId}/pulls/1`);

    // The change: one new page that says what wrote it, linked from the README.
    expect(git(repo, 'diff', '--name-status', `main...${job.source.ref}`).split('\n').sort()).toEqual([
      'A\tdocs/faq.md',
      'M\tREADME.md',
    ]);
    const page = git(repo, 'show', `${job.source.ref}:docs/faq.md`);
    expect(page).toMatch(/^# FAQ\n/);
    expect(page).toContain(DEMO_NOTE);
    expect(page).toContain(prompt);
    expect(git(repo, 'show', `${job.source.ref}:README.md`)).toContain('- [FAQ](docs/faq.md)');

    // The pull request's description and the job page say a demo model made it.
    const cookie = await dashboardCookie(server.url, PASSWORD);
    const pull = await (await fetch(job.prLink ?? '', { headers: { cookie } })).text();
    expect(pull).toContain('Made by the agentjobs demo model');
    expect(pull).toContain('no AI model was used');
    const jobPage = await fetch(`${server.url}/ui/projects/${projectId}/jobs/${job.id}`, {
      headers: { cookie },
    });
    expect(await jobPage.text()).toContain('demo model: a small labelled change, no AI model was used');
  });
});
