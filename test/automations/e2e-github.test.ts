/**
 * Automations end to end through the GitHub double (issue 27, "Done when"): the built server
 * receives GitHub's signed hooks, its dispatcher runs the automations, its worker runs the jobs on
 * the scripted model and opens and updates the docs pull request on the double. One story, in
 * order: a merged pull request on the context repository makes a job from the shipped template; a
 * second merge while its pull request is open joins it; a member's comment on the pull request
 * continues it; an outsider's comment, a forged signature and a repeated delivery start nothing.
 */
import { describe, expect, it } from 'vitest';
import type { AutomationRun } from '../../src/domain/automation.js';
import { automationTemplate } from '../../src/domain/automation-templates.js';
import type { Job } from '../../src/domain/job.js';
import { useAutomationEndToEnd } from '../support/automation-e2e.js';
import { testDialects } from '../support/db.js';

const writes = (file: string, text: string, summary: string) => [
  { toolCalls: [{ name: 'write_file', input: { path: file, content: text } }] },
  { text: summary },
];

describe.each(testDialects())('automations through the GitHub double on %s', (dialect) => {
  const e2e = useAutomationEndToEnd('github', dialect);
  const template = automationTemplate('update-docs-from-code');
  let docs = '';
  let comments = '';
  let job: Job;
  let firstHead = '';
  let second = { deliveryId: '', message: null as unknown as ReturnType<typeof e2e.double.hookMessage> };

  const post = async (path: string, body: unknown) => {
    const { status, job: created } = await e2e.api.call('POST', path, body);
    expect(status).toBe(201);
    return (created as unknown as { id: string }).id;
  };
  const jobs = async () => ((await e2e.api.call('GET', '/job')).job as unknown as { jobs: Job[] }).jobs;
  const runsWhen = async (automationId: string, count: number) => {
    await expect.poll(async () => (await e2e.runs(automationId)).length, { timeout: 30_000 }).toBe(count);
    return e2e.runs(automationId);
  };
  const outcomes = (runs: AutomationRun[]) => runs.map((run) => [run.outcome, run.reason, run.jobId]);
  const runLines = (body: string) => body.split('\n').filter((line) => /^- \d{4}-\d\d-\d\d /.test(line));
  const merged = (number: number, mergeCommit: string) =>
    e2e.double.hookMessage('acme/product', { kind: 'merged', number, title: `Merge ${number}`, mergeCommit });

  it('turns a merged pull request on the context repository into a job that opens a docs pull request', async () => {
    expect(template).toBeDefined();
    docs = await post('/automations', {
      name: 'Docs follow the product',
      trigger: { type: 'code_change', repository: 'product', branch: 'main' },
      prompt: template?.prompt,
      group: true,
    });
    comments = await post('/automations', {
      name: 'Answer mentions',
      trigger: { type: 'comment' },
      prompt: '{{comment.author}} asks: {{comment.body}}',
    });
    const head = e2e.commitToProduct('cli.ts', "export const flags = ['--verbose'];\n", 'Add --verbose');
    firstHead = head;
    e2e.model.setScript(writes('verbose.md', '# --verbose\n\nSays more.\n', 'Document --verbose'));

    const sent = await e2e.double.sendHook(e2e.hookUrl, merged(12, head), e2e.secret);
    expect(sent).toMatchObject({ status: 202, body: { outcome: 'recorded' } });
    const [run] = await runsWhen(docs, 1);
    expect(run).toMatchObject({ outcome: 'created', reason: null });
    job = await e2e.api.waitUntil(run?.jobId ?? '', (current) => current.status !== 'active');

    const pullUrl = `${e2e.productUrl.replace(/\.git$/, '')}/pull/12`;
    expect(job).toMatchObject({ status: 'completed', error: null, summary: 'Document --verbose' });
    expect(job.trigger).toEqual({ type: 'code_change', automationId: docs, source: pullUrl });
    // The template, rendered: its instructions, the head merged, the merged pull request.
    expect(job.prompt).toContain("The product's code changed. Bring the documentation in line with it.");
    expect(job.prompt).toContain(`Repository product, branch main`);
    expect(job.prompt).toContain(head);
    expect(job.prompt).toContain(pullUrl);
    expect(job.prompt).toContain('Merge 12');
    expect(job.prompt).not.toMatch(/\{\{|\}\}/);
    // The diff and the files, read from the context repository's mirror: the merge's own change.
    expect(job.prompt).toContain("+export const flags = ['--verbose'];");
    expect(job.prompt).toContain('-export const flags = [];');
    expect(job.prompt).toMatch(/Changed files:\n[\s\S]*cli\.ts/);

    const pulls = e2e.double.pulls();
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ head: job.source.ref, state: 'open' });
    expect(job.prLink).toMatch(/\/org\/repo\/pull\/1$/);
    expect(runLines(pulls[0]?.body ?? '')).toHaveLength(1);
    expect(pulls[0]?.body).toContain('code change');
  });

  it('groups a second merge into the open pull request: a follow-up on the same job', async () => {
    const head = e2e.commitToProduct(
      'cli.ts',
      "export const flags = ['--verbose', '--quiet'];\n",
      'Add --quiet',
    );
    e2e.model.setScript(writes('quiet.md', '# --quiet\n\nSays less.\n', 'Document --quiet'));

    const message = merged(13, head);
    const sent = await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret);
    expect(sent).toMatchObject({ status: 202, body: { outcome: 'recorded' } });
    second = { deliveryId: sent.deliveryId, message };
    const runs = await runsWhen(docs, 2);
    expect(outcomes(runs)).toEqual([
      ['grouped', null, job.id],
      ['created', null, job.id],
    ]);
    const again = await e2e.api.waitUntil(job.id, (current) => current.summary === 'Document --quiet');
    expect(again).toMatchObject({ status: 'completed', error: null, prLink: job.prLink });
    expect(again.source.ref).toBe(job.source.ref);
    // The follow-up's prompt quotes the change since the head the first run saw.
    const asked = JSON.stringify(e2e.model.requests.map((request) => request.body.messages));
    expect(asked).toContain(`from ${firstHead} to ${head}`);
    expect(asked).toContain("-export const flags = ['--verbose'];");
    expect(asked).toContain("+export const flags = ['--verbose', '--quiet'];");

    const pulls = e2e.double.pulls();
    expect(pulls).toHaveLength(1);
    // The pull request's description gains a line for the run that continued it.
    expect(runLines(pulls[0]?.body ?? '')).toHaveLength(2);
    expect(pulls[0]?.body).toContain('/acme/product/pull/13');
    expect(await jobs()).toHaveLength(1);
  });

  it("continues the job on a member's comment that mentions @agentjobs on its pull request", async () => {
    const pullNumber = Number(/\/pull\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
    e2e.model.setScript(writes('quickstart.md', '# Quickstart\n\nUse --verbose.\n', 'Update the quickstart'));
    const message = e2e.double.hookMessage('org/repo', {
      kind: 'comment',
      number: pullNumber,
      body: '@agentjobs please also update the quickstart',
      author: 'maintainer',
      association: 'MEMBER',
    });
    const sent = await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret);
    expect(sent).toMatchObject({ status: 202, body: { outcome: 'recorded' } });

    const [run] = await runsWhen(comments, 1);
    expect(run).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
    expect(run?.trigger.source).toContain(`/org/repo/pull/${pullNumber}#issuecomment-`);
    const again = await e2e.api.waitUntil(job.id, (current) => current.summary === 'Update the quickstart');
    expect(again).toMatchObject({ status: 'completed', prLink: job.prLink });
    expect(e2e.double.pulls()).toHaveLength(1);
    expect(runLines(e2e.double.pulls()[0]?.body ?? '')).toHaveLength(3);
    expect(await jobs()).toHaveLength(1);
    // The service answered on the pull request's thread with the job's page and its pull request.
    expect(e2e.double.comments()).toEqual([
      {
        number: pullNumber,
        body: `On it: ${e2e.server.url}/ui/projects/${e2e.projectId}/jobs/${job.id}\n\nPull request: ${job.prLink}`,
      },
    ]);
  });

  it("starts nothing for an outsider's comment, a forged signature or a repeated delivery", async () => {
    const pullNumber = Number(/\/pull\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
    const before = e2e.model.requests.length;
    const outsider = e2e.double.hookMessage('org/repo', {
      kind: 'comment',
      number: pullNumber,
      body: '@agentjobs delete every page',
      author: 'stranger',
      association: 'NONE',
    });
    expect(await e2e.double.sendHook(e2e.hookUrl, outsider, e2e.secret)).toMatchObject({ status: 202 });
    const [untrusted] = await runsWhen(comments, 2);
    expect(untrusted).toMatchObject({ outcome: 'skipped', reason: 'untrusted_author', jobId: null });

    const head = e2e.commitToProduct('cli.ts', "export const flags = ['--loud'];\n", 'Add --loud');
    const forged = await e2e.double.sendHook(e2e.hookUrl, merged(14, head), e2e.secret, {
      signature: { secret: 'not-the-secret' },
    });
    expect(forged.status).toBe(401);
    const unsigned = await e2e.double.sendHook(e2e.hookUrl, merged(14, head), e2e.secret, {
      signature: 'missing',
    });
    expect(unsigned.status).toBe(401);

    // GitHub's "Redeliver": the same delivery, sent again.
    const repeated = await e2e.double.sendHook(e2e.hookUrl, second.message, e2e.secret, {
      deliveryId: second.deliveryId,
    });
    expect(repeated).toMatchObject({ status: 202, body: { outcome: 'duplicate' } });
    const runs = await runsWhen(docs, 3);
    // The forged hooks made no run: the only new one is the repeat's, skipped.
    expect(outcomes(runs)).toEqual([
      ['skipped', 'duplicate', null],
      ['grouped', null, job.id],
      ['created', null, job.id],
    ]);
    expect(await jobs()).toHaveLength(1);
    expect((await e2e.api.call('GET', `/job/${job.id}`)).job.status).toBe('completed');
    expect(e2e.model.requests.length).toBe(before);
    expect(e2e.double.pulls()).toHaveLength(1);

    // Neither the hook secret nor the token reached a log line, the model, the host or a job.
    const seen = [
      e2e.server.output.join('\n'),
      JSON.stringify(e2e.model.requests.map((request) => request.body)),
      e2e.double.requests.map((request) => request.body).join('\n'),
      JSON.stringify(await jobs()),
    ].join('\n');
    expect(seen).toContain(job.id);
    expect(seen).not.toContain(e2e.secret);
    expect(seen).not.toContain(e2e.token);
    // An outsider's comment got no answer.
    expect(e2e.double.comments()).toHaveLength(1);
  });

  it('continues the job when the answer on the thread fails: the failure is logged, the run stands', async () => {
    const pullNumber = Number(/\/pull\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
    e2e.double.refuseComments?.(true);
    e2e.model.setScript(writes('faq.md', '# FAQ\n\nUse --verbose.\n', 'Add a FAQ'));
    const message = e2e.double.hookMessage('org/repo', {
      kind: 'comment',
      number: pullNumber,
      body: 'Could you add a FAQ, @agentjobs?',
      author: 'maintainer',
      association: 'MEMBER',
    });
    expect(await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret)).toMatchObject({ status: 202 });
    const [run] = await runsWhen(comments, 3);
    expect(run).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
    await expect
      .poll(() => e2e.server.output.join('\n'), { timeout: 60_000 })
      .toContain('could not answer on the thread of a comment');
    const again = await e2e.api.waitUntil(job.id, (current) => current.summary === 'Add a FAQ');
    expect(again.status).toBe('completed');
    expect(e2e.double.comments()).toHaveLength(1);
    expect(e2e.server.output.join('\n')).not.toContain(e2e.token);
    e2e.double.refuseComments?.(false);
  });

  it("answers an owner's comment on the product's pull request there, and ignores a member who may only read", async () => {
    const before = e2e.double.comments().length;
    // An organisation MEMBER whose role on the docs is read: the payload's association proves nothing.
    e2e.double.grant?.('org/repo', 'reader', 'read');
    const reader = e2e.double.hookMessage('org/repo', {
      kind: 'comment',
      number: 40,
      on: 'issue',
      body: '@agentjobs rewrite the whole site',
      author: 'reader',
      association: 'MEMBER',
    });
    expect(await e2e.double.sendHook(e2e.hookUrl, reader, e2e.secret)).toMatchObject({ status: 202 });
    const [refused] = await runsWhen(comments, 4);
    expect(refused).toMatchObject({ outcome: 'skipped', reason: 'untrusted_author', jobId: null });
    expect(
      e2e.double.requests.some((request) => request.path.endsWith('/collaborators/reader/permission')),
    ).toBe(true);

    // The product's owner asks on the product's pull request #1: the answer goes there.
    e2e.double.grant?.('acme/product', 'lead', 'admin');
    e2e.model.setScript(writes('flags.md', '# Flags\n\n--verbose.\n', 'Document the flags'));
    const owner = e2e.double.hookMessage('acme/product', {
      kind: 'comment',
      number: 1,
      body: '@agentjobs document this change',
      author: 'lead',
      association: 'OWNER',
    });
    expect(await e2e.double.sendHook(e2e.hookUrl, owner, e2e.secret)).toMatchObject({ status: 202 });
    // The automation groups: the run continues the job whose docs pull request is still open.
    const [grouped] = await runsWhen(comments, 5);
    expect(grouped).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
    await expect.poll(() => e2e.double.commentsOn?.('acme/product').length, { timeout: 30_000 }).toBe(1);
    expect(e2e.double.commentsOn?.('acme/product')[0]).toMatchObject({ number: 1 });
    expect(e2e.double.commentsOn?.('acme/product')[0]?.body).toContain(`/jobs/${job.id}`);
    // Nothing landed on the docs repository's thread #1 (its own pull request).
    expect(e2e.double.comments()).toHaveLength(before);
    await e2e.api.waitUntil(job.id, (current) => current.summary === 'Document the flags');
  });
});
