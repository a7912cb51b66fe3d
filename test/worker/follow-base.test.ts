import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { MergeConflictError, mergeLocalPullRequest } from '../../src/hosts/index.js';
import { testDialects } from '../support/db.js';
import type { ScriptedTurn } from '../support/scripted-model.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { git, waitFor } from '../support/worker.js';

const upstream = ['-c', 'user.name=Upstream', '-c', 'user.email=up@example.com'];

// A follow-up works on what main is now (docs/api.md; issue 29): the story of the
// issue with the local code host, the real agent and the scripted model, real git and a real database.
describe.each(testDialects())('follow-ups on what the base is now, on %s', (dialect) => {
  const scripted = useScriptedWorker({ name: 'follow-base', dialect });
  const store = () => scripted.t.store;
  const projectId = () => scripted.project.id;

  const settled = (jobId: string) =>
    waitFor(
      () => store().jobs.get(projectId(), jobId),
      (job) => job?.status !== 'active',
      { timeoutMs: 60_000, everyMs: 50 },
    ) as Promise<Job>;

  const create = async (prompt: string, script: ScriptedTurn[]) => {
    scripted.model.setScript(script);
    const job = await store().jobs.create({
      projectId: projectId(),
      prompt,
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: scripted.repo,
      draft: false,
    });
    return settled(job.id);
  };

  const followUp = async (job: Job, prompt: string, script: ScriptedTurn[]) => {
    scripted.model.setScript(script);
    scripted.model.requests.length = 0;
    // The job is active again when this returns; it settles when the run is over.
    await store().jobs.followUp(projectId(), job.id, prompt);
    return settled(job.id);
  };

  const write = (file: string, content: string): ScriptedTurn => ({
    toolCalls: [{ name: 'write_file', input: { path: file, content } }],
  });

  const numberOf = (job: Job) => Number(job.prLink?.split('/').at(-1));

  const merge = async (job: Job) => {
    const pullRequest = await store().pullRequests.get(projectId(), numberOf(job));
    if (!pullRequest) throw new Error(`no pull request for ${job.prLink}`);
    return mergeLocalPullRequest({
      project: scripted.project,
      pullRequest,
      pullRequests: store().pullRequests,
      authorName: 'Merger',
      authorEmail: 'merger@example.com',
    });
  };

  /** A commit straight onto main in the working copy, as a person working there would. */
  const commitOnMain = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(scripted.repo, file)), { recursive: true });
    fs.writeFileSync(path.join(scripted.repo, file), content);
    git(scripted.repo, 'add', '-A');
    git(scripted.repo, ...upstream, 'commit', '-q', '-m', `Change ${file} on main`);
  };

  const pullEvents = async (jobId: string) =>
    (await store().events.list(jobId, 0, 10_000))
      .filter((event) => event.type === 'pull_request')
      .map((event) => (event.data as { number: number }).number);

  it('after its pull request was merged, starts a new branch from main as it is now and opens a new pull request', async () => {
    const first = await create('Add the install page', [
      write('docs/install.md', '# Install\n\nRun the installer.\n'),
      { text: 'Add the install page' },
    ]);
    expect(first).toMatchObject({ status: 'completed' });
    await merge(first);
    const second = await create('Add the upgrade page', [
      write('docs/upgrade.md', '# Upgrade\n\nRun the upgrade.\n'),
      { text: 'Add the upgrade page' },
    ]);
    await merge(second);
    expect(numberOf(second)).toBe(numberOf(first) + 1);

    const followed = await followUp(first, 'Link the upgrade page from the install page', [
      { toolCalls: [{ name: 'read_file', input: { path: 'docs/upgrade.md' } }] },
      write('docs/install.md', '# Install\n\nRun the installer. Later, [upgrade](upgrade.md).\n'),
      { text: 'Linked the upgrade page.' },
    ]);

    expect(followed).toMatchObject({ status: 'completed', error: null });
    const branch = `${first.source.ref}-2`;
    expect(followed.source.ref).toBe(branch);
    expect(numberOf(followed)).toBe(numberOf(second) + 1);
    // The new branch starts from main as it is now: it has the second job's page, so the agent read it.
    expect(git(scripted.repo, 'show', `${branch}:docs/upgrade.md`)).toContain('Run the upgrade.');
    expect(JSON.stringify(scripted.model.requests.at(1)?.body)).toContain('Run the upgrade.');
    expect(JSON.stringify(scripted.model.requests.at(0)?.body)).toContain(
      `Pull request #${numberOf(first)} of this job was merged, so this follow-up works on a new branch`,
    );
    const pull = await store().pullRequests.get(projectId(), numberOf(followed));
    expect(pull).toMatchObject({ headBranch: branch, state: 'open', jobId: first.id });
    expect(await store().pullRequests.get(projectId(), numberOf(first))).toMatchObject({ state: 'merged' });
    // The earlier pull request stays in the job's events.
    expect(await pullEvents(first.id)).toEqual([numberOf(first), numberOf(followed)]);
    const merged = await merge(followed);
    expect(merged.pullRequest.state).toBe('merged');
    expect(git(scripted.repo, 'show', 'main:docs/install.md')).toContain('[upgrade](upgrade.md)');
  });

  it('counts a branch merged with git by hand as a merged pull request', async () => {
    const job = await create('Add the glossary', [
      write('docs/glossary.md', '# Glossary\n'),
      { text: 'Add the glossary' },
    ]);
    git(scripted.repo, ...upstream, 'merge', '-q', '--no-ff', '-m', 'Merge by hand', job.source.ref);
    const followed = await followUp(job, 'Add a term', [
      write('docs/glossary.md', '# Glossary\n\n- Job: a unit of work.\n'),
      { text: 'Added a term.' },
    ]);
    expect(followed).toMatchObject({ status: 'completed', source: { ref: `${job.source.ref}-2` } });
    expect(numberOf(followed)).not.toBe(numberOf(job));
    expect(await store().pullRequests.get(projectId(), numberOf(job))).toMatchObject({ state: 'merged' });
  });

  it('merges main into the branch of an open pull request whose base moved on', async () => {
    const job = await create('Add the FAQ', [
      write('docs/faq.md', '# FAQ\n\nAsk.\n'),
      { text: 'Add the FAQ' },
    ]);
    commitOnMain('docs/news.md', '# News\n\nVersion 2.\n');
    const followed = await followUp(job, 'Add an answer', [
      write('docs/faq.md', '# FAQ\n\nAsk. We answer.\n'),
      { text: 'Added an answer.' },
    ]);

    expect(followed).toMatchObject({ status: 'completed', prLink: job.prLink, error: null });
    expect(followed.source.ref).toBe(job.source.ref);
    const branch = job.source.ref;
    git(scripted.repo, 'merge-base', '--is-ancestor', 'main', branch);
    expect(git(scripted.repo, 'show', `${branch}:docs/news.md`)).toContain('Version 2.');
    const mergeCommit = git(scripted.repo, 'log', '--merges', '-1', '--format=%an <%ae>%n%s', branch);
    expect(mergeCommit).toBe(`agentjobs <agentjobs@localhost>\nMerge main into ${branch}`);
    const commits = (await store().events.list(job.id, 0, 10_000)).filter((event) => event.type === 'commit');
    expect(commits.map((event) => event.data)).toContainEqual(
      expect.objectContaining({ branch, files: [], merge: { base: 'main', conflicts: [] } }),
    );
    expect((await merge(followed)).fastForward).toBe(true);
  });

  it('hands conflicts to the agent with their markers and publishes only once they are resolved', async () => {
    const job = await create('Reword step one', [
      write('docs/guide.md', '# Guide\n\nStep one, as the agent says it.\n'),
      { text: 'Reword step one' },
    ]);
    commitOnMain('docs/guide.md', '# Guide\n\nStep one, as main says it now.\n');
    const refused = await merge(job).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MergeConflictError);
    expect((refused as MergeConflictError).files).toEqual(['docs/guide.md']);
    const before = git(scripted.repo, 'rev-parse', job.source.ref);
    const seen = (await store().events.list(job.id, 0, 10_000)).length;

    const resolved = '# Guide\n\nStep one, as main says it now, and as the agent says it.\n';
    const followed = await followUp(job, 'Please make it mergeable', [
      { toolCalls: [{ name: 'read_file', input: { path: 'docs/guide.md' } }] },
      // The agent answers without resolving: the check refuses the markers and sends them back.
      { text: 'Looked at it.' },
      write('docs/guide.md', resolved),
      { text: 'Resolved the conflict in the guide.' },
    ]);

    const first = JSON.stringify(scripted.model.requests.at(0)?.body);
    expect(first).toContain('conflicted in these files');
    expect(first).toContain('- docs/guide.md');
    // The file the agent read holds git's markers.
    const read = JSON.stringify(scripted.model.requests.at(1)?.body);
    expect(read).toContain(`<<<<<<< refs/heads/${job.source.ref}`);
    expect(read).toContain('>>>>>>> refs/heads/main');
    expect(followed).toMatchObject({ status: 'completed', error: null, prLink: job.prLink });
    const checks = (await store().events.list(job.id, seen, 10_000))
      .filter((event) => event.type === 'check')
      .map((event) => event.data as { status: string; results: { name: string; status: string }[] });
    expect(checks.map((check) => check.status)).toEqual(['failed', 'passed']);
    expect(checks[0]?.results.find((result) => result.name === 'conflicts')).toMatchObject({
      status: 'failed',
      problems: [expect.objectContaining({ path: 'docs/guide.md', line: 3 })],
    });
    expect(git(scripted.repo, 'rev-parse', job.source.ref)).not.toBe(before);
    expect(git(scripted.repo, 'show', `${job.source.ref}:docs/guide.md`)).toBe(resolved.trimEnd());
    expect((await merge(followed)).pullRequest.state).toBe('merged');
    expect(git(scripted.repo, 'show', 'main:docs/guide.md')).toBe(resolved.trimEnd());
  });

  it('publishes nothing while a marker is left, whatever the policy', async () => {
    const job = await create('Reword the welcome', [
      write('README.md', '# Docs\n\nWelcome, says the agent.\n'),
      { text: 'Reword the welcome' },
    ]);
    commitOnMain('README.md', '# Docs\n\nWelcome, says main.\n');
    const before = git(scripted.repo, 'rev-parse', job.source.ref);
    const followed = await followUp(job, 'Make it mergeable', [
      { text: 'Nothing to do.' },
      { text: 'Still nothing.' },
      { text: 'I will not.' },
    ]);
    expect(followed).toMatchObject({ status: 'failed', error: { code: 'checks_failed' } });
    expect(followed.error?.message).toContain('Merge conflict markers are still in the files');
    expect(git(scripted.repo, 'rev-parse', job.source.ref)).toBe(before);
  });
});
