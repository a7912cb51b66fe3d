import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckRun } from '../../src/domain/checks.js';
import { createGithubHost } from '../../src/hosts/github.js';
import { CHECKS_FAILED_LABEL, labelForChecks } from '../../src/run/checks-label.js';
import type { Lease } from '../../src/store/queue/index.js';
import { makeTestJob, testDialects, useTestStore } from '../support/db.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';
import { hostProject } from '../support/host-projects.js';
import { tempDir } from '../support/worker.js';

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`;
const run = (status: CheckRun['status']): CheckRun => ({
  status,
  ranAt: new Date().toISOString(),
  results: [],
});

// Issue 37: a pull request published with failed checks carries a label on hosts that have labels,
// a later run whose checks pass takes it off, and a host that refuses the label fails nothing.
describe.each(testDialects())('the label of failed checks on %s', (dialect) => {
  const t = useTestStore(dialect);
  let double: GithubDouble;
  let dir: string;
  beforeAll(async () => {
    double = await startGithubDouble({ token: TOKEN });
    dir = tempDir('checks-label');
  });
  afterAll(async () => {
    await double?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A claimed job of a GitHub project whose pull request 1.. is open on the double. */
  async function setup(repo: string) {
    const repository = double.repository('org', repo);
    const stored = await t.store.projects.create({ name: repo, repository: `/tmp/${repo}` });
    const job = await makeTestJob(t.store, stored, 'Add an FAQ');
    const [claimed] = await t.store.queue.claim({ owner: 'w1', limit: 1, perProject: 5, leaseMs: 60_000 });
    expect(claimed?.job.id).toBe(job.id);
    const lease: Lease = { jobId: job.id, attempt: claimed?.attempt ?? 0, owner: 'w1' };
    const host = createGithubHost({
      secret: async () => TOKEN,
      askpassDir: path.join(dir, 'askpass'),
      retry: { baseMs: 5, pacing: false },
    });
    const project = hostProject('github', `https://github.com/org/${repo}.git`, { apiUrl: double.url });
    const pull = await host.openOrUpdatePullRequest({
      project,
      job,
      branch: `agentjobs/${repo}`,
      base: 'main',
      title: 'Add an FAQ',
      body: 'Body',
      draft: true,
      headSha: 'a'.repeat(40),
    });
    const input = { store: t.store, lease, host, project };
    const labels = () => repository.pulls.find((each) => each.number === pull.number)?.labels ?? [];
    const actions = async () =>
      (await t.store.events.ofTypes(job.id, ['pull_request'])).flatMap((event) =>
        'action' in event.data ? [event.data.action] : [],
      );
    return { repository, pull, input, labels, actions };
  }

  it('labels the pull request when checks fail, and takes the label off when a later run passes', async () => {
    const { pull, input, labels, actions } = await setup('labelled');
    await labelForChecks(input, pull, run('failed'));
    expect(labels()).toEqual([CHECKS_FAILED_LABEL]);
    // A run whose checks fail again keeps it, and says nothing new.
    await labelForChecks(input, pull, run('failed'));
    expect(labels()).toEqual([CHECKS_FAILED_LABEL]);
    // Checks that could not run leave it.
    await labelForChecks(input, pull, run('error'));
    expect(labels()).toEqual([CHECKS_FAILED_LABEL]);
    await labelForChecks(input, pull, run('passed'));
    expect(labels()).toEqual([]);
    expect(await actions()).toEqual(['labelled', 'unlabelled']);
  });

  it('asks nothing of the host when checks pass on a pull request it never labelled', async () => {
    const { pull, input, actions } = await setup('never-labelled');
    const before = double.requests.length;
    await labelForChecks(input, pull, run('passed'));
    expect(double.requests.length).toBe(before);
    expect(await actions()).toEqual([]);
  });

  it('records a host’s refusal as an event and goes on', async () => {
    const { repository, pull, input, labels, actions } = await setup('refused');
    repository.refuseLabels = true;
    await expect(labelForChecks(input, pull, run('failed'))).resolves.toBeUndefined();
    expect(labels()).toEqual([]);
    expect(await actions()).toEqual(['label_failed']);
    const [event] = await t.store.events
      .ofTypes(input.lease.jobId, ['pull_request'])
      .then((all) => all.filter((each) => 'action' in each.data));
    expect(event?.data).toMatchObject({
      url: `https://github.com/org/refused/pull/${pull.number}`,
      label: CHECKS_FAILED_LABEL,
      message: expect.stringMatching(/could not be labelled “agentjobs: checks failed”: GitHub denied/),
    });
  });
});
