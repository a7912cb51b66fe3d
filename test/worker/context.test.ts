import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { type ScriptedWorker, scriptedWorker } from '../support/scripted-worker.js';
import { git, makeRepo, settledJob } from '../support/worker.js';

// Long runs against a model that refuses requests past a size, as providers refuse prompts longer
// than their window: the real agent and worker, the scripted model over HTTP, real git and SQLite.

/** A page of about 6,000 characters: 60 lines of prose with the page's own number in each. */
function page(number: number): string {
  const lines = Array.from(
    { length: 60 },
    (_, line) =>
      `Paragraph ${line + 1} of page ${number}: the service keeps each job on its own branch, and a reviewer reads the diff before it is merged.`,
  );
  return `# Page ${number}\n\n${lines.join('\n')}\n`;
}

const PAGES = 20;

function repoWithPages(dir: string): string {
  const { repo } = makeRepo(dir);
  fs.mkdirSync(path.join(repo, 'pages'));
  for (let number = 1; number <= PAGES; number++)
    fs.writeFileSync(path.join(repo, 'pages', `page-${number}.md`), page(number));
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=Upstream', '-c', 'user.email=up@example.com', 'commit', '-q', '-m', 'pages');
  return repo;
}

const read = (number: number): ScriptedTurn => ({
  toolCalls: [{ name: 'read_file', input: { path: `pages/page-${number}.md` } }],
});

type Setup = ScriptedWorker;

const setUp = (name: string, contextTokens: string) =>
  scriptedWorker({ name, env: { AGENTJOBS_CONTEXT_TOKENS: contextTokens }, repo: repoWithPages });

async function settled(setup: Setup, jobId: string): Promise<Job> {
  return settledJob(setup.t.store, setup.project.id, jobId);
}

describe('a run that reads more than the window holds', () => {
  let setup: Setup;
  beforeAll(async () => {
    // 20,000 tokens by the agent's estimate (80,000 characters); the model refuses past 90,000.
    setup = await setUp('context-long', '20000');
    setup.model.setContextLimit(90_000);
  });
  afterAll(() => setup?.close());

  it('completes because older tool results were replaced by notes', async () => {
    const { t, model, project, repo } = setup;
    const plan = { items: [{ content: 'Read every page', status: 'in_progress' }] };
    model.setScript([
      { toolCalls: [{ name: 'update_plan', input: plan }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'pages/index.md', content: 'INDEX-CONTENT\n' } }] },
      ...Array.from({ length: PAGES }, (_, index) => read(index + 1)),
      {
        toolCalls: [
          {
            name: 'edit_file',
            input: { path: 'pages/page-20.md', old_text: '# Page 20', new_text: '# Page twenty' },
          },
        ],
      },
      { text: 'Read all twenty pages' },
    ]);
    const created = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Read every page and retitle the last',
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    const job = await settled(setup, created.id);
    expect(job).toMatchObject({ status: 'completed', error: null, filesChanged: 2 });
    expect(model.refusedAsTooLong).toBe(0);

    const events = await t.store.events.list(job.id, 0, 10_000);
    const notes = events.filter((event) => event.type === 'context');
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]?.data).toMatchObject({ reason: 'near_window', windowTokens: 20_000 });
    expect(Number(notes[0]?.data.tokensAfter)).toBeLessThan(Number(notes[0]?.data.tokensBefore));

    const last = JSON.stringify(model.requests.at(-1)?.body.messages);
    // The oldest reads are notes now; the prompt, the plan, the edit and the latest reads are whole.
    expect(last).toContain('[Removed to save context: pages/page-1.md (lines 1-62 of 62), read earlier');
    expect(last).not.toContain('Paragraph 1 of page 1:');
    expect(last).toContain('Read every page and retitle the last');
    expect(last).toContain('Read every page\\",\\"status');
    expect(last).toContain('INDEX-CONTENT');
    expect(last).toContain('Paragraph 60 of page 20:');
    for (const request of model.requests)
      expect(JSON.stringify(request.body.messages).length).toBeLessThan(90_000);
    // What is saved for a follow-up is the compacted conversation.
    const saved = JSON.stringify(await t.store.queue.conversation(job.id));
    expect(saved).toContain('[Removed to save context:');
    expect(saved).toContain('INDEX-CONTENT');
  });
});

describe('a run whose first request is already over the size', () => {
  let setup: Setup;
  beforeAll(async () => {
    // The agent believes in a huge window, so only the provider's refusal can tell it otherwise.
    setup = await setUp('context-overflow', '1000000');
  });
  afterAll(() => setup?.close());

  it('compacts once and tries again, instead of failing the job', async () => {
    const { t, model, project, repo } = setup;
    model.setScript([
      ...Array.from({ length: 10 }, (_, index) => read(index + 1)),
      { text: 'Read ten pages' },
    ]);
    const created = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Read ten pages',
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    expect((await settled(setup, created.id)).status).toBe('completed');

    // The follow-up starts from the saved conversation: over 60,000 characters.
    model.setContextLimit(40_000);
    model.setScript([{ text: 'Answered the follow-up' }]);
    const before = model.requests.length;
    await t.store.jobs.followUp(project.id, created.id, 'Now summarise them');
    const job = await settled(setup, created.id);
    expect(job).toMatchObject({ status: 'completed', error: null, summary: 'Answered the follow-up' });
    expect(model.refusedAsTooLong).toBe(1);
    expect(model.requests.length - before).toBe(2);
    const events = await t.store.events.list(job.id, 0, 10_000);
    const notes = events.filter((event) => event.type === 'context');
    expect(notes).toHaveLength(1);
    expect(notes[0]?.data).toMatchObject({ reason: 'overflow' });
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it('fails with model_error when there is nothing left to compact', async () => {
    const { t, model, project, repo } = setup;
    model.setContextLimit(100);
    model.setScript([{ text: 'never' }]);
    const before = model.refusedAsTooLong;
    const created = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Anything',
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    const job = await settled(setup, created.id);
    expect(job.error?.code).toBe('model_error');
    expect(job.error?.message).toContain('maximum context length');
    expect(model.refusedAsTooLong - before).toBe(1);
  });
});
