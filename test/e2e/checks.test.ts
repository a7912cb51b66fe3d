import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { openDb } from '../../src/store/db.js';
import { testDialects } from '../support/db.js';
import { createProjectAndKey, git, type JobTarget, jobApi } from '../support/e2e.js';
import { useScriptedServer } from '../support/scripted-server.js';

const BROKEN =
  '---\ntitle: Quickstart\n---\n\n# Quickstart\n\n<Note>\nRead [the setup](/setup-guide) first.\n';
const FIXED =
  '---\ntitle: Quickstart\n---\n\n# Quickstart\n\n<Note>\nRead [the setup](/guides/setup) first.\n</Note>\n';

describe.each(testDialects())('checks end to end on %s', (dialect) => {
  let draftTarget: JobTarget;
  let failTarget: JobTarget;
  const scripted = useScriptedServer({
    name: 'checks-e2e',
    dialect,
    files: {
      'docs.json': JSON.stringify(
        { name: 'Acme', navigation: { pages: ['index', 'quickstart', 'guides/setup'] } },
        null,
        2,
      ),
      'index.mdx': '---\ntitle: Home\n---\n\nWelcome.\n',
      'quickstart.mdx': '---\ntitle: Quickstart\n---\n\n# Quickstart\n\nInstall it.\n',
      'guides/setup.mdx': '---\ntitle: Setup\n---\n\n# Setup\n',
    },
    env: { AGENTJOBS_CHECK_REPAIR_ROUNDS: '1' },
    project: false,
  });
  beforeAll(async () => {
    const draft = await createProjectAndKey(scripted.env, scripted.repo);
    const fail = await createProjectAndKey(scripted.env, scripted.repo, ['--on-check-failure', 'fail']);
    draftTarget = { url: scripted.server.url, ...draft };
    failTarget = { url: scripted.server.url, ...fail };
  });

  /** Starts a job of `target`'s project with `prompt` and waits until it has ended. */
  const runJob = async (target: JobTarget, prompt: string) => {
    const { call, waitUntil } = jobApi(() => target);
    const { job: created } = await call('POST', '/job', { prompt });
    return waitUntil(created.id, (job: Job) => job.status !== 'active');
  };
  const writeBroken = {
    toolCalls: [{ name: 'write_file', input: { path: 'quickstart.mdx', content: BROKEN } }],
  };
  /** The user message the agent got after its first answer: the checks' findings. */
  const repairPrompt = () =>
    JSON.stringify(
      scripted.model.requests.find((request) => JSON.stringify(request.body).includes('The checks found'))
        ?.body,
    );

  async function pullRequest(prLink: string | null) {
    const number = Number(prLink?.split('/').at(-1));
    const db = openDb({ url: scripted.env.DATABASE_URL ?? '' });
    try {
      return await db.kysely
        .selectFrom('pull_requests')
        .select(['draft', 'body', 'job_id'])
        .where('number', '=', number)
        .where('project_id', '=', draftTarget.projectId)
        .executeTakeFirstOrThrow();
    } finally {
      await db.close();
    }
  }

  it('tells the agent every problem; it fixes them and the pull request is ready for review', async () => {
    scripted.model.requests.length = 0;
    scripted.model.setScript([
      writeBroken,
      { text: 'Add a note to the quickstart' },
      { toolCalls: [{ name: 'write_file', input: { path: 'quickstart.mdx', content: FIXED } }] },
      { toolCalls: [{ name: 'run_checks', input: {} }] },
      { text: 'Add a note to the quickstart\n\nFixed the unclosed Note and the link.' },
    ]);
    const job = await runJob(draftTarget, 'Add a note to the quickstart');

    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'passed' } });
    const told = repairPrompt();
    expect(told).toContain('`<Note>` opened on line 7 is never closed');
    expect(told).toContain('/setup-guide');
    // The run_checks call answered the agent with the checks' verdict.
    expect(JSON.stringify(scripted.model.requests.at(-1)?.body)).toContain('All checks passed.');

    const { events } = await (
      await fetch(`${scripted.server.url}/v2/agent/${draftTarget.projectId}/job/${job.id}/events`, {
        headers: { authorization: `Bearer ${draftTarget.key}` },
      })
    ).json();
    const checks = events.filter((event: { type: string }) => event.type === 'check');
    expect(
      checks.map((event: { data: { status: string; by: string } }) => [event.data.by, event.data.status]),
    ).toEqual([
      ['worker', 'failed'],
      ['agent', 'passed'],
      ['worker', 'passed'],
    ]);

    const pull = await pullRequest(job.prLink);
    expect(Number(pull.draft)).toBe(0);
    expect(pull.body).toContain('**Checks:** passed');
    expect(git(scripted.repo, 'show', `${job.source.ref}:quickstart.mdx`)).toBe(FIXED.trimEnd());
  });

  it('opens a draft listing the problems when the agent leaves them', async () => {
    scripted.model.setScript([writeBroken, { text: 'Add a note' }, { text: 'I could not fix the page.' }]);
    const job = await runJob(draftTarget, 'Add a note');

    expect(job).toMatchObject({ status: 'completed', error: null, checks: { status: 'failed' } });
    const problems = job.checks?.results.flatMap((result) =>
      result.problems.map((p) => `${result.name} ${p.path}:${p.line}`),
    );
    expect(problems).toEqual(['markdown quickstart.mdx:7', 'links quickstart.mdx:8']);
    const pull = await pullRequest(job.prLink);
    expect(Number(pull.draft)).toBe(1);
    expect(pull.body).toContain('**Checks:** failed');
    expect(pull.body).toContain('This pull request is a draft until they are fixed.');
    expect(pull.body).toContain('`quickstart.mdx:7` (markdown) `<Note>` opened on line 7 is never closed');
    expect(pull.body).toContain('`quickstart.mdx:8` (links)');
  });

  it('publishes nothing when the project says checks must pass', async () => {
    scripted.model.setScript([writeBroken, { text: 'Add a note' }, { text: 'Still broken.' }]);
    const job = await runJob(failTarget, 'Add a broken note');

    expect(job).toMatchObject({ status: 'failed', prLink: null, checks: { status: 'failed' } });
    expect(job.error?.code).toBe('checks_failed');
    expect(git(scripted.repo, 'branch', '--list', job.source.ref)).toBe('');
  });
});
