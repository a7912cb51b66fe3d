import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { dashboardCookie, git, jobApi } from '../support/e2e.js';
import { makeGate } from '../support/gate.js';
import { heldUntil } from '../support/scripted-model.js';
import { scriptedServer, useScriptedServer } from '../support/scripted-server.js';
import { eventually, startReceiver } from '../support/webhook-receiver.js';

const PASSWORD = 'e2e admin password';

// The whole product on one machine: the built server, a local repository, a scripted
// OpenAI-compatible model, real HTTP and real git.
describe.each(testDialects())('agent jobs end to end on %s', (dialect) => {
  let baseSha: string;
  const scripted = useScriptedServer({
    name: 'agent-e2e',
    dialect,
    files: { 'README.md': '# Docs\n\nWelcome.\n', 'guide/install.md': '# Install\n\nRun npm install.\n' },
    // The webhook receiver is on loopback.
    env: { AGENTJOBS_ADMIN_PASSWORD: PASSWORD, AGENTJOBS_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  beforeAll(async () => {
    baseSha = git(scripted.repo, 'rev-parse', 'main');
  });

  const { call: api, waitUntil } = jobApi(() => ({
    url: scripted.server.url,
    projectId: scripted.projectId,
    key: scripted.key,
  }));
  const finished = (job: Job) => job.status !== 'active';

  it('runs a job to a pull request holding exactly the scripted change', async () => {
    scripted.model.setScript([
      { toolCalls: [{ name: 'read_file', input: { path: 'guide/install.md' } }] },
      {
        toolCalls: [
          {
            name: 'write_file',
            input: { path: 'guide/faq.md', content: '# FAQ\n\nHow do I install? See install.md.\n' },
          },
        ],
      },
      { text: 'Add an FAQ page\n\nI added guide/faq.md with the install question.' },
    ]);
    const created = await api('POST', '/job', { prompt: 'Add an FAQ page' });
    expect(created.status).toBe(201);
    const job = await waitUntil(created.job.id, finished);

    expect(job).toMatchObject({
      status: 'completed',
      title: 'Add an FAQ page',
      filesChanged: 1,
      error: null,
    });
    expect(job.summary).toContain('guide/faq.md');
    expect(job.usage.steps).toBe(3);
    expect(job.prLink).toBe(`${scripted.server.url}/ui/projects/${scripted.projectId}/pulls/1`);

    // The branch in the repository holds exactly the change; the base is untouched.
    expect(git(scripted.repo, 'rev-parse', 'main')).toBe(baseSha);
    expect(git(scripted.repo, 'diff', '--name-status', `main...${job.source.ref}`)).toBe('A\tguide/faq.md');
    expect(git(scripted.repo, 'show', `${job.source.ref}:guide/faq.md`)).toContain('How do I install?');

    // prLink resolves to a page with the title and the diff.
    const page = await fetch(job.prLink ?? '', {
      headers: { cookie: await dashboardCookie(scripted.server.url, PASSWORD) },
    });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Add an FAQ page');
    expect(text).toContain('+How do I install? See install.md.');

    // The follow-up continues on the same branch and updates the same pull request.
    scripted.model.setScript([
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: 'guide/faq.md', old_text: 'See install.md.', new_text: 'See the install guide.' },
          },
        ],
      },
      { text: 'Link wording updated' },
    ]);
    const followed = await api('POST', `/job/${job.id}/message`, {
      prompt: 'Say "the install guide" instead',
    });
    expect(followed.status).toBe(200);
    const again = await waitUntil(job.id, (j) => finished(j) && j.summary === 'Link wording updated');
    expect(again.status).toBe('completed');
    expect(again.prLink).toBe(job.prLink);
    expect(git(scripted.repo, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('2');
    expect(git(scripted.repo, 'show', `${job.source.ref}:guide/faq.md`)).toContain('See the install guide.');
    // The follow-up reached the model with the conversation so far.
    const lastRequest = JSON.stringify(scripted.model.requests.at(-2)?.body);
    expect(lastRequest).toContain('Add an FAQ page');
    expect(lastRequest).toContain('the install guide');
  });

  it('keeps keys in the prompt out of the pull request, its page, the commit and webhook payloads', async () => {
    const apiKey = `ajs_${'K3y'.repeat(8)}`;
    const providerKey = `sk-ant-api03-${'p'.repeat(24)}`;
    const receiver = await startReceiver();
    const hooks = `${scripted.server.url}/v2/agent/${scripted.projectId}/webhooks`;
    let hookId = '';
    try {
      const hook = await fetch(hooks, {
        method: 'POST',
        headers: { authorization: `Bearer ${scripted.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['job.created', 'job.completed'] }),
      });
      expect(hook.status).toBe(201);
      hookId = ((await hook.json()) as { id: string }).id;
      scripted.model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'keys.md', content: '# Keys\n\nRotated.\n' } }] },
        // A reply, not a name: the title falls back to the prompt's first line.
        { text: 'Done. I rotated them.' },
      ]);
      const prompt = `Rotate ${apiKey} and ${providerKey}\n\nThe old ones: ${apiKey}, ${providerKey}.`;
      const { job: created } = await api('POST', '/job', { prompt });
      const job = await waitUntil(created.id, finished);
      expect(job.status).toBe('completed');
      const page = await fetch(job.prLink ?? '', {
        headers: { cookie: await dashboardCookie(scripted.server.url, PASSWORD) },
      });
      expect(page.status).toBe(200);
      await eventually(() => receiver.received.length >= 2);
      const out = {
        title: job.title ?? '',
        pullRequestPage: await page.text(),
        commitMessage: git(scripted.repo, 'log', '-1', '--format=%B', job.source.ref),
        webhookPayloads: receiver.received.map((request) => request.body).join('\n'),
      };
      for (const [where, text] of Object.entries(out)) {
        expect(text, `${where} holds a key`).not.toContain(apiKey);
        expect(text, `${where} holds a key`).not.toContain(providerKey);
        expect(text, `${where} says what was there`).toContain('[redacted]');
      }
      expect(job.title).toBe('Rotate ajs_[redacted] and [redacted]');
    } finally {
      // The later tests' jobs are not sent to a receiver that is gone.
      if (hookId)
        await fetch(`${hooks}/${hookId}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${scripted.key}` },
        });
      await receiver.close();
    }
  });

  it('completes with no pull request when nothing changed', async () => {
    scripted.model.setScript([{ text: 'Everything is already correct.' }]);
    const { job: created } = await api('POST', '/job', { prompt: 'Check the README' });
    const job = await waitUntil(created.id, finished);
    expect(job).toMatchObject({ status: 'completed', prLink: null, filesChanged: 0 });
    expect(() =>
      git(scripted.repo, 'rev-parse', '--verify', '--quiet', `refs/heads/${job.source.ref}`),
    ).toThrow();
  });

  it('stops a running job on archive and publishes nothing', async () => {
    const { opened: held, open: release } = makeGate();
    scripted.model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'draft.md', content: 'draft\n' } }] },
      heldUntil(held, { text: 'too late' }),
    ]);
    const { job: created } = await api('POST', '/job', { prompt: 'Write a draft' });
    await waitUntil(
      created.id,
      () =>
        scripted.model.requests.length > 0 &&
        JSON.stringify(scripted.model.requests.at(-1)?.body).includes('draft.md'),
    );
    const archived = await api('POST', `/job/${created.id}/archive`);
    expect(archived.job.status).toBe('archived');
    // The worker lets go of the job: nothing of it reaches the repository.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    release();
    expect(() =>
      git(scripted.repo, 'rev-parse', '--verify', '--quiet', `refs/heads/${created.source.ref}`),
    ).toThrow();
    const events = (await (
      await fetch(`${scripted.server.url}/v2/agent/${scripted.projectId}/job/${created.id}/events`, {
        headers: { authorization: `Bearer ${scripted.key}` },
      })
    ).json()) as { events: { type: string }[] };
    expect(events.events.map((e) => e.type)).not.toContain('pull_request');
  });

  it('streams the agent activity live over SSE', async () => {
    scripted.model.setScript([
      { toolCalls: [{ name: 'list_files', input: {} }] },
      {
        toolCalls: [
          { name: 'update_plan', input: { items: [{ content: 'Look around', status: 'completed' }] } },
        ],
      },
      { text: 'Looked around' },
    ]);
    const { job } = await api('POST', '/job', { prompt: 'Look around' });
    const response = await fetch(
      `${scripted.server.url}/v2/agent/${scripted.projectId}/job/${job.id}/events`,
      {
        headers: { authorization: `Bearer ${scripted.key}`, accept: 'text/event-stream' },
      },
    );
    const body = await response.text(); // the stream ends when the job does
    const types = [...body.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(types).toEqual(
      expect.arrayContaining(['status', 'tool_call', 'tool_result', 'plan', 'message', 'usage']),
    );
    expect(types.at(-1)).toBe('status');
    expect(body).toContain('"status":"completed"');
  });
});

describe('a model endpoint that is down', () => {
  it('fails the job with model_error after retries', async () => {
    const scripted = await scriptedServer({
      name: 'down',
      files: {},
      env: {
        // Nothing listens on port 1.
        OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:1/v1',
        // A refused connection is an outage the run waits out; here, only briefly.
        AGENTJOBS_MODEL_OUTAGE_SECONDS: '1',
      },
    });
    try {
      const { api } = scripted;
      const created = await api.call('POST', '/job', { prompt: 'x' });
      const job = await api.waitUntil(created.job.id, (current) => current.status !== 'active', 30_000);
      expect(job.status).toBe('failed');
      expect(job.error?.code).toBe('model_error');
      expect(job.error?.message).not.toContain('undefined');
    } finally {
      await scripted.close();
    }
  });
});
