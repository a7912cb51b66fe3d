import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/db.js';
import { SECRETS } from '../support/real-agent.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { git } from '../support/worker.js';

// What a run of the real agent sends, stores and hands out, with the scripted model over HTTP,
// real git, the local code host and a real database.
describe.each(testDialects())('runs of the real agent on %s', (dialect) => {
  const scripted = useScriptedWorker({
    name: 'agent-output',
    dialect,
    env: { AGENTJOBS_MODEL_OUTAGE_SECONDS: '3' },
  });

  const run = async (script: ScriptedTurn[], prompt = 'Improve the docs') => {
    scripted.model.setScript(script);
    const done = await scripted.runJob({ prompt });
    const events = await scripted.t.store.events.list(done.id, 0, 10_000);
    return { job: done, events };
  };
  const serverError = (): ScriptedTurn => ({ error: { status: 500, headers: { 'retry-after-ms': '20' } } });

  it('keeps keys and the server secrets out of events, summary, title, commit message and PR body', async () => {
    const apiKey = `ajs_${'A1b2C3d4E5'.repeat(4)}Zz9Yy8`;
    const providerKey = `sk-proj-${'q'.repeat(12)}${'7'.repeat(12)}`;
    const secrets = [apiKey, providerKey, ...Object.values(SECRETS)];
    const leak = secrets.join(' and ');
    const { job, events } = await run([
      {
        toolCalls: [
          { name: 'update_plan', input: { items: [{ content: `Use ${leak}`, status: 'in_progress' }] } },
          { name: 'write_file', input: { path: 'docs/keys.md', content: `# Keys\n\n${leak}\n` } },
          { name: 'search_files', input: { query: leak } },
        ],
        text: `Working with ${leak}`,
      },
      { text: `Documented ${apiKey}\n\nThe keys: ${leak}.` },
    ]);
    expect(job.status).toBe('completed');
    const pull = await scripted.t.store.pullRequests.getByBranch(scripted.project.id, job.source.ref);
    const commitMessage = git(scripted.repo, 'log', '-1', '--format=%B', job.source.ref);
    const out = {
      events: JSON.stringify(events),
      summary: job.summary,
      title: job.title,
      commitMessage,
      pullRequest: `${pull?.title}\n${pull?.body}`,
    };
    for (const [where, text] of Object.entries(out)) {
      for (const secret of secrets) expect(text, `${where} holds a secret`).not.toContain(secret);
    }
    expect(job.summary).toContain('Documented ajs_[redacted]');
    expect(out.pullRequest).toContain('[redacted]');
    expect(commitMessage).toContain('[redacted]');
    // The write went through as the model sent it: redaction is of what the run hands out.
    expect(git(scripted.repo, 'show', `${job.source.ref}:docs/keys.md`)).toContain(apiKey);
  });

  it('keeps keys in the prompt out of the title, the commit message and the pull request', async () => {
    const apiKey = `ajs_${'K3y'.repeat(8)}`;
    const providerKey = `sk-ant-api03-${'p'.repeat(24)}`;
    const { job } = await run(
      [
        { toolCalls: [{ name: 'write_file', input: { path: 'docs/rotated.md', content: '# Rotated\n' } }] },
        // A reply, not a name: the title falls back to the prompt's first line.
        { text: 'Done. I rotated them.' },
      ],
      `Rotate ${apiKey} and ${providerKey}\n\nThe old ones: ${apiKey}, ${providerKey}.`,
    );
    expect(job.status).toBe('completed');
    const pull = await scripted.t.store.pullRequests.getByBranch(scripted.project.id, job.source.ref);
    const out = {
      title: job.title ?? '',
      commitMessage: git(scripted.repo, 'log', '-1', '--format=%B', job.source.ref),
      pullRequest: `${pull?.title}\n${pull?.body}`,
    };
    for (const [where, text] of Object.entries(out)) {
      expect(text, `${where} holds a key`).not.toContain(apiKey);
      expect(text, `${where} holds a key`).not.toContain(providerKey);
    }
    expect(out.title).toBe('Rotate ajs_[redacted] and [redacted]');
    expect(out.pullRequest).toContain('> The old ones: ajs_[redacted], [redacted].');
  });

  it('keeps refused 10 MiB write_file inputs out of what it sends again, stores and reports', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const before = scripted.model.requests.length;
    const { job, events } = await run([
      ...Array.from({ length: 4 }, (_, index) => ({
        toolCalls: [{ name: 'write_file', input: { path: `big-${index}.md`, content: huge } }],
      })),
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/small.md', content: 'small\n' } }] },
      { text: 'Wrote docs/small.md' },
    ]);
    expect(job).toMatchObject({ status: 'completed', summary: 'Wrote docs/small.md', filesChanged: 1 });
    const sent = scripted.model.requests.slice(before).map((request) => JSON.stringify(request.body).length);
    expect(sent).toHaveLength(6);
    for (const size of sent) expect(size).toBeLessThan(256 * 1024);
    const conversation = JSON.stringify(await scripted.t.store.queue.conversation(job.id));
    expect(conversation.length).toBeLessThan(64 * 1024);
    expect(conversation).toContain('omitted: over the 512 KiB limit]');
    expect(JSON.stringify(events).length).toBeLessThan(64 * 1024);
  });

  it('waits out a model that answers 500 for a while, then completes', async () => {
    const { job, events } = await run([
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/outage.md', content: 'after\n' } }] },
      ...Array.from({ length: 6 }, serverError),
      { text: 'Wrote docs/outage.md' },
    ]);
    expect(job).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
    const waits = events
      .filter((event) => event.type === 'phase')
      .filter((event) => event.data.reason === 'model_unavailable');
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]?.data.message).toMatch(/HTTP 500.*Trying again at/);
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(git(scripted.repo, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('1');
  });

  it('fails with model_error, and one error event, when the outage outlasts the bound', async () => {
    const { job, events } = await run(Array.from({ length: 2000 }, serverError));
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('model_error');
    expect(job.error?.message).toMatch(/HTTP 500.*stayed unavailable/);
    const errors = events.filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.data).toEqual(job.error);
  });

  it('fails at once on an error that waiting cannot fix, with one error event', async () => {
    const { job, events } = await run([{ error: { status: 400 } }]);
    expect(job.error?.code).toBe('model_error');
    expect(events.filter((event) => event.type === 'error')).toHaveLength(1);
    expect(events.some((event) => event.type === 'phase' && event.data.reason === 'model_unavailable')).toBe(
      false,
    );
  });
});
