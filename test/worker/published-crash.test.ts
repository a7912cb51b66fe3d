import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { killGroup, startTsxChild } from '../support/processes.js';
import { realAgentConfig, startRealWorker } from '../support/real-agent.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import {
  fakeAgent,
  git,
  makeRepo,
  settledJob,
  startTestWorker,
  tempDir,
  testConfig,
} from '../support/worker.js';

/** Starts `published-crash-child.ts` in its own process group; resolves with the job it stalled on. */
function startDoomedWorker(env: Record<string, string>) {
  let stalled: (jobId: string) => void = () => {};
  const { child, exited } = startTsxChild<{ completing?: string }>(
    'test/support/published-crash-child.ts',
    env,
    (message) => {
      if (message.completing) stalled(message.completing);
    },
  );
  const completing = new Promise<string>((resolve, reject) => {
    stalled = resolve;
    exited.catch(reject);
  });
  return { child, completing };
}

describe.each(testDialects())('a worker killed between publishing and completing, on %s', (dialect) => {
  let t: TestStore | undefined;
  let dir: string | undefined;
  let model: ScriptedModelServer | undefined;
  let child: ChildProcess | undefined;
  let stopWorker: (() => Promise<void>) | undefined;

  afterEach(async () => {
    if (child) killGroup(child);
    await stopWorker?.();
    await model?.close();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    [child, stopWorker, model, t, dir] = [undefined, undefined, undefined, undefined, undefined];
  });

  it('leaves one commit and one pull request, and the next worker completes the job without the model', async () => {
    t = await openTestStore(dialect);
    dir = tempDir('published-crash');
    const { repo } = makeRepo(dir);
    const dataDir = path.join(dir, 'data');
    const project = await t.store.projects.create({ name: 'Docs', repository: repo });
    model = await startScriptedModel({
      script: [
        { toolCalls: [{ name: 'write_file', input: { path: 'docs/once.md', content: 'written once\n' } }] },
        { text: 'Added docs/once.md' },
      ],
    });
    const job = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Add docs/once.md',
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });

    const doomed = startDoomedWorker({
      DATABASE_URL: t.url,
      AGENTJOBS_DATA_DIR: dataDir,
      MODEL_URL: model.url,
    });
    child = doomed.child;
    expect(await doomed.completing).toBe(job.id);
    killGroup(child);
    const requestsOfFirstRun = model.requests.length;
    expect(requestsOfFirstRun).toBe(2);
    const branch = job.source.ref;
    expect(git(repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');

    // Anything the model is asked now fails the test: the job is to be finished without it.
    model.setScript([{ error: { status: 400 } }]);
    const config = realAgentConfig(dataDir, model.url);
    const { worker } = await startRealWorker(config, t.store, 'survivor');
    stopWorker = () => worker.stop({ graceMs: 0 });
    const done = await settledJob(t.store, project.id, job.id, 60_000);

    expect(done).toMatchObject({
      status: 'completed',
      error: null,
      summary: 'Added docs/once.md',
      filesChanged: 1,
      prLink: `http://agentjobs.test/ui/projects/${project.id}/pulls/1`,
    });
    expect(done.usage.steps).toBe(2);
    expect(model.requests.length).toBe(requestsOfFirstRun);
    expect(git(repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect(git(repo, 'show', `${branch}:docs/once.md`)).toBe('written once');
    expect((await t.store.pullRequests.list(project.id, { limit: 10 })).pullRequests).toHaveLength(1);
    const events = await t.store.events.list(job.id, 0, 1000);
    expect(events.filter((event) => event.type === 'commit')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool_call')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'status').map((event) => event.data.status)).toEqual([
      'active',
      'completed',
    ]);
    // A follow-up continues from the first run's conversation.
    expect(JSON.stringify(await t.store.queue.conversation(job.id))).toContain('docs/once.md');
  });

  it('opens the pull request of a branch pushed by an attempt that died before opening it', async () => {
    t = await openTestStore(dialect);
    dir = tempDir('published-branch');
    const { repo } = makeRepo(dir);
    const project = await t.store.projects.create({ name: 'Docs', repository: repo });
    const job = await t.store.jobs.create({
      projectId: project.id,
      prompt: 'Add docs/pushed.md',
      model: 'openai:fake',
      baseRef: 'main',
      repository: repo,
      draft: false,
    });
    // The dead attempt: it claimed the job, pushed its branch, recorded that, and vanished.
    const [claimed] = await t.store.queue.claim({ owner: 'dead', limit: 1, perProject: 2, leaseMs: 1 });
    if (!claimed) throw new Error('the job was not claimed');
    const branch = job.source.ref;
    git(repo, 'checkout', '-q', '-b', branch);
    fs.writeFileSync(path.join(repo, 'pushed.md'), 'pushed\n');
    git(repo, 'add', 'pushed.md');
    git(repo, '-c', 'user.name=agentjobs', '-c', 'user.email=a@b', 'commit', '-q', '-m', 'Add pushed.md');
    git(repo, 'checkout', '-q', 'main');
    const lease = { jobId: job.id, attempt: claimed.attempt, owner: 'dead' };
    const prompts = await t.store.queue.takePrompts(lease);
    const usage = { inputTokens: 7, outputTokens: 3, steps: 2 };
    await t.store.queue.recordPublished(
      lease,
      {
        summary: 'Added pushed.md',
        title: 'Add pushed.md',
        prLink: null,
        pullRequest: { title: 'Add pushed.md', body: 'Added pushed.md', draft: false },
        headSha: git(repo, 'rev-parse', branch),
        filesChanged: 1,
        usage,
      },
      {
        conversation: [{ role: 'user', content: 'Add docs/pushed.md' }],
        deliveredThrough: prompts.at(-1)?.id ?? null,
      },
    );

    const agent = fakeAgent();
    const { worker } = await startTestWorker({
      config: testConfig(path.join(dir, 'data'), { pollMs: 200 }),
      store: t.store,
      agent,
    });
    stopWorker = () => worker.stop({ graceMs: 0 });
    const done = await settledJob(t.store, project.id, job.id, 30_000);
    expect(done).toMatchObject({
      status: 'completed',
      summary: 'Added pushed.md',
      title: 'Add pushed.md',
      usage,
      prLink: `http://agentjobs.test/ui/projects/${project.id}/pulls/1`,
    });
    expect(agent.calls).toHaveLength(0);
    expect(git(repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect((await t.store.pullRequests.list(project.id, { limit: 10 })).pullRequests).toHaveLength(1);
    expect(await t.store.queue.published(job.id)).toBeNull();
  });
});
