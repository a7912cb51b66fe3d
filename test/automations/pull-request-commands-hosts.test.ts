/**
 * Commands on the agent's own pull requests through the GitLab and Gitea doubles (docs/automations.md,
 * "Commands on the agent's pull requests"): these hosts' comments are trusted only from an author
 * the automation names, so an outsider's `stop` is skipped; a named author's `retry` runs the last
 * prompt again and `stop` makes the next merge open a new merge request, each answered on the thread.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { useAutomationEndToEnd } from '../support/automation-e2e.js';
import { testDialects } from '../support/db.js';

const writes = (file: string, text: string, summary: string) => [
  { toolCalls: [{ name: 'write_file', input: { path: file, content: text } }] },
  { text: summary },
];

const cases = (['gitlab', 'gitea'] as const).flatMap((host) =>
  testDialects().map((dialect) => [host, dialect] as const),
);

describe.each(cases)('commands on the agent’s pull request through the %s double on %s', (host, dialect) => {
  const e2e = useAutomationEndToEnd(host, dialect);
  let docs = '';
  let comments = '';
  let job: Job;

  const post = async (path: string, body: unknown) => {
    const { status, job: created } = await e2e.api.call('POST', path, body);
    expect(status).toBe(201);
    return (created as unknown as { id: string }).id;
  };
  const runsWhen = async (automationId: string, count: number) => {
    await expect.poll(async () => (await e2e.runs(automationId)).length, { timeout: 30_000 }).toBe(count);
    return e2e.runs(automationId);
  };
  const pullNumber = () => Number(/\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
  const page = () => `${e2e.server.url}/ui/projects/${e2e.projectId}/jobs/${job.id}`;
  const merge = async (number: number, flags: string) => {
    const head = e2e.commitToProduct('cli.ts', `export const flags = ${flags};\n`, `Flags ${number}`);
    const message = e2e.double.hookMessage('acme/product', { kind: 'merged', number, mergeCommit: head });
    expect(await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret)).toMatchObject({ status: 202 });
  };
  const comment = async (author: string, body: string) => {
    const message = e2e.double.hookMessage('org/repo', {
      kind: 'comment',
      number: pullNumber(),
      author,
      body,
    });
    expect(await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret)).toMatchObject({ status: 202 });
  };

  it('makes a job whose merge request the commands are said on', async () => {
    docs = await post('/automations', {
      name: 'Docs follow the product',
      trigger: { type: 'code_change', repository: 'product', branch: 'main' },
      prompt: 'Document the flags up to {{change.to}}.',
      group: true,
    });
    comments = await post('/automations', {
      name: 'Answer mentions',
      trigger: { type: 'comment' },
      prompt: '{{comment.body}}',
      allowedAuthors: ['maintainer'],
    });
    e2e.model.setScript(writes('verbose.md', '# --verbose\n', 'Document --verbose'));
    await merge(12, "['--verbose']");
    const [run] = await runsWhen(docs, 1);
    job = await e2e.api.waitUntil(run?.jobId ?? '', (current) => current.status !== 'active');
    expect(job).toMatchObject({ status: 'completed', summary: 'Document --verbose' });
  });

  it("skips an outsider's stop, and retries the last prompt for a named author", async () => {
    await comment('stranger', '@agentjobs stop');
    const [untrusted] = await runsWhen(comments, 1);
    expect(untrusted).toMatchObject({ outcome: 'skipped', reason: 'untrusted_author', jobId: null });

    e2e.model.setScript(writes('verbose.md', '# --verbose\n\nSays more.\n', 'Documented --verbose again'));
    await comment('maintainer', '@agentjobs retry');
    const [retry] = await runsWhen(comments, 2);
    expect(retry).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
    await e2e.api.waitUntil(job.id, (current) => current.summary === 'Documented --verbose again');
    const asked = JSON.stringify(e2e.model.requests.at(-1)?.body.messages ?? []);
    expect(asked).toContain("asked on the pull request to run this job's last prompt again");
    expect(e2e.double.comments()).toEqual([
      {
        number: pullNumber(),
        body: `Retrying: the job's last prompt runs again, in the job's next run (now).\n\nJob: ${page()}`,
      },
    ]);
  });

  it("stops on a named author's stop: the next merge opens a new merge request", async () => {
    await comment('maintainer', '@agentjobs stop');
    const [stop] = await runsWhen(comments, 3);
    expect(stop).toMatchObject({ outcome: 'skipped', reason: 'stopped', jobId: job.id });
    await expect.poll(() => e2e.double.comments().length, { timeout: 30_000 }).toBe(2);
    expect(e2e.double.comments()[1]?.body).toMatch(
      /^Stopped: automation runs no longer add to this pull request/,
    );

    e2e.model.setScript(writes('loud.md', '# --loud\n', 'Document --loud'));
    await merge(13, "['--loud']");
    const [created] = await runsWhen(docs, 2);
    expect(created).toMatchObject({ outcome: 'created', reason: null });
    expect(created?.jobId).not.toBe(job.id);
    await e2e.api.waitUntil(created?.jobId ?? '', (current) => current.status !== 'active');
    expect(e2e.double.pulls()).toHaveLength(2);
  });
});
