import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { testDialects } from '../support/db.js';
import { git } from '../support/e2e.js';
import { makeGate } from '../support/gate.js';
import { runCli } from '../support/processes.js';
import { heldUntil } from '../support/scripted-model.js';
import { type ScriptedServer, scriptedServer } from '../support/scripted-server.js';

const hasBranch = (repo: string, branch: string) => {
  try {
    git(repo, 'show-ref', '--verify', '--quiet', `refs/heads/${branch}`);
    return true;
  } catch {
    return false;
  }
};

// What a client reads on a job while it runs and after: usage, title, source.ref. The built server
// over real HTTP, a scripted model, real git.
describe.each(testDialects())('job fields end to end on %s', (dialect) => {
  let scripted: ScriptedServer;
  beforeAll(async () => {
    scripted = await scriptedServer({ name: 'job-fields', dialect });
  });
  afterAll(async () => {
    await scripted?.close();
  });
  const finished = (job: Job) => job.status !== 'active';
  const write = (file: string) => ({
    toolCalls: [{ name: 'write_file', input: { path: file, content: `# ${file}\n` } }],
  });

  it('counts steps on the job while it runs, not only at the end', async () => {
    const { model, api } = scripted;
    const { opened: gate, open: release } = makeGate();
    model.setScript([write('a.md'), write('b.md'), heldUntil(gate, { text: 'Add two pages' })]);
    const created = await api.call('POST', '/job', { prompt: 'Add two pages' });
    expect(created.status).toBe(201);
    expect(created.job.usage.steps).toBe(0);
    // Two steps done, the third held at the model: the job says so while it is still running.
    const running = await api.waitUntil(created.job.id, (job) => job.usage.steps === 2 || finished(job));
    expect(running).toMatchObject({ status: 'active', phase: 'running', usage: { steps: 2 } });
    expect(running.usage.inputTokens).toBeGreaterThan(0);
    release();
    const done = await api.waitUntil(created.job.id, finished);
    expect(done).toMatchObject({ status: 'completed', usage: { steps: 3 }, filesChanged: 2 });
  });

  it('keeps the title through a follow-up whose answer is a chat line', async () => {
    const { model, api, repo } = scripted;
    model.setScript([write('faq.md'), { text: 'Add an FAQ page\n\nI added faq.md.' }]);
    const created = await api.call('POST', '/job', { prompt: 'Please add an FAQ page' });
    const first = await api.waitUntil(created.job.id, finished);
    expect(first).toMatchObject({ status: 'completed', title: 'Add an FAQ page' });

    model.setScript([write('faq2.md'), { text: 'Done. I added a second FAQ page as well.' }]);
    const followed = await api.call('POST', `/job/${first.id}/message`, { prompt: 'Add a second one' });
    expect(followed.status).toBe(200);
    const second = await api.waitUntil(
      first.id,
      (job) => finished(job) && job.summary?.startsWith('Done.') === true,
    );
    expect(second).toMatchObject({ status: 'completed', title: 'Add an FAQ page', filesChanged: 2 });
    expect(git(repo, 'log', '-1', '--format=%s', second.source.ref)).toBe('Add an FAQ page');
  });

  it('names a branch that exists only once something was pushed to it', async () => {
    const { model, api, repo } = scripted;
    model.setScript([{ text: 'Everything is already correct, so I changed nothing.' }]);
    const created = await api.call('POST', '/job', { prompt: 'Check the README' });
    const job = await api.waitUntil(created.job.id, finished);
    expect(job).toMatchObject({ status: 'completed', prLink: null, filesChanged: 0 });
    // The planned branch stays the job's (a follow-up that changes something pushes it) ...
    expect(job.source.ref).toMatch(/^agentjobs\/[0-9a-z]{8}-check-the-readme$/);
    expect(hasBranch(repo, job.source.ref)).toBe(false);
    const cliEnv = {
      AGENTJOBS_URL: scripted.server.url,
      AGENTJOBS_API_KEY: scripted.key,
      AGENTJOBS_PROJECT: scripted.projectId,
    };
    const shown = await runCli(['job', 'get', job.id], cliEnv);
    expect(shown.stdout).toMatch(new RegExp(`branch +${job.source.ref} \\(none pushed\\)`));

    model.setScript([write('notes.md'), { text: 'Add notes' }]);
    await api.call('POST', `/job/${job.id}/message`, { prompt: 'Add notes after all' });
    const changed = await api.waitUntil(job.id, (current) => finished(current) && current.prLink !== null);
    expect(changed.source.ref).toBe(job.source.ref);
    expect(hasBranch(repo, job.source.ref)).toBe(true);
    const pushed = await runCli(['job', 'get', job.id], cliEnv);
    expect(pushed.stdout).toMatch(new RegExp(`branch +${job.source.ref}\\n`));
  });

  it('pushes a branch named after a Cyrillic prompt in Latin letters', async () => {
    const { model, api, repo } = scripted;
    model.setScript([write('slow.md'), { text: 'Document slow builds' }]);
    const created = await api.call('POST', '/job', { prompt: 'Опиши медленную сборку' });
    expect(created.job.source.ref).toMatch(/^agentjobs\/[0-9a-z]{8}-opishi-medlennuyu-sborku$/);
    const job = await api.waitUntil(created.job.id, finished);
    expect(job.status).toBe('completed');
    expect(hasBranch(repo, job.source.ref)).toBe(true);
  });
});
