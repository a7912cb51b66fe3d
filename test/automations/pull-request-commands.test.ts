/**
 * Commands on the agent's own pull requests, end to end through the GitHub double (docs/automations.md,
 * "Commands on the agent's pull requests"): the built server receives the comments as GitHub's
 * signed hooks, and the worker runs on the scripted model. One story, in order: an outsider's
 * `stop` changes nothing (the next merge still groups); a sentence that starts with a command word
 * is a follow-up; `rebase` makes the branch again on the base as it moved; `retry` runs the last
 * prompt again; a maintainer's `stop` makes the next merge open a new pull request. Each command is
 * answered on the thread.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AutomationRun } from '../../src/domain/automation.js';
import type { Job } from '../../src/domain/job.js';
import { useAutomationEndToEnd } from '../support/automation-e2e.js';
import { testDialects } from '../support/db.js';

const writes = (file: string, text: string, summary: string) => [
  { toolCalls: [{ name: 'write_file', input: { path: file, content: text } }] },
  { text: summary },
];

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, '-c', 'user.name=p', '-c', 'user.email=p@e', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
    .toString()
    .trim();

describe.each(testDialects())(
  'commands on the agent’s pull request through the GitHub double on %s',
  (dialect) => {
    const e2e = useAutomationEndToEnd('github', dialect);
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
    const outcomes = (runs: AutomationRun[]) => runs.map((run) => [run.outcome, run.reason, run.jobId]);
    const pullNumber = () => Number(/\/pull\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
    const page = (jobId: string) => `${e2e.server.url}/ui/projects/${e2e.projectId}/jobs/${jobId}`;
    const merge = async (number: number, flags: string) => {
      const head = e2e.commitToProduct('cli.ts', `export const flags = ${flags};\n`, `Flags ${number}`);
      const message = e2e.double.hookMessage('acme/product', { kind: 'merged', number, mergeCommit: head });
      expect(await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret)).toMatchObject({ status: 202 });
    };
    const comment = async (author: string, body: string) => {
      const message = e2e.double.hookMessage('org/repo', {
        kind: 'comment',
        number: pullNumber(),
        body,
        author,
        association: author === 'maintainer' ? 'MEMBER' : 'NONE',
      });
      expect(await e2e.double.sendHook(e2e.hookUrl, message, e2e.secret)).toMatchObject({ status: 202 });
    };
    /** What the model was asked in its latest request, as text. */
    const lastAsked = () => JSON.stringify(e2e.model.requests.at(-1)?.body.messages ?? []);

    it('makes a job whose pull request the commands are said on', async () => {
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
      });
      e2e.model.setScript(writes('verbose.md', '# --verbose\n\nSays more.\n', 'Document --verbose'));
      await merge(12, "['--verbose']");
      const [run] = await runsWhen(docs, 1);
      job = await e2e.api.waitUntil(run?.jobId ?? '', (current) => current.status !== 'active');
      expect(job).toMatchObject({ status: 'completed', summary: 'Document --verbose' });
      expect(e2e.double.pulls()).toHaveLength(1);
    });

    it("does nothing for an outsider's stop: the next merge still groups into the pull request", async () => {
      await comment('stranger', '@agentjobs stop');
      const [untrusted] = await runsWhen(comments, 1);
      expect(untrusted).toMatchObject({ outcome: 'skipped', reason: 'untrusted_author', jobId: null });

      e2e.model.setScript(writes('quiet.md', '# --quiet\n\nSays less.\n', 'Document --quiet'));
      await merge(13, "['--verbose', '--quiet']");
      expect(outcomes(await runsWhen(docs, 2))[0]).toEqual(['grouped', null, job.id]);
      await e2e.api.waitUntil(job.id, (current) => current.summary === 'Document --quiet');
      expect(e2e.double.pulls()).toHaveLength(1);
      expect(e2e.double.comments()).toEqual([]);
    });

    it('takes a sentence that starts with a command word for a follow-up, as before', async () => {
      e2e.model.setScript(writes('intro.md', '# Intro\n\nOnce.\n', 'Stop the intro repeating'));
      await comment('maintainer', '@agentjobs stop the intro from repeating');
      const [followUp] = await runsWhen(comments, 2);
      expect(followUp).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
      await e2e.api.waitUntil(job.id, (current) => current.summary === 'Stop the intro repeating');
      expect(lastAsked()).toContain('@agentjobs stop the intro from repeating');
      expect(e2e.double.comments()).toEqual([
        { number: pullNumber(), body: `On it: ${page(job.id)}\n\nPull request: ${job.prLink}` },
      ]);
    });

    it('rebases: the branch is made again on the base as it is now, with the job’s changes on it', async () => {
      // Someone moves the base on: a page the job never touched.
      const clone = path.join(e2e.dir, 'docs-clone');
      git(e2e.dir, 'clone', '-q', e2e.bare, clone);
      fs.writeFileSync(path.join(clone, 'README.md'), '# Docs\n\nWelcome, all.\n');
      git(clone, 'commit', '-q', '-am', 'Welcome everyone');
      git(clone, 'push', '-q', 'origin', 'main');
      const base = git(e2e.bare, 'rev-parse', 'main');
      const before = git(e2e.bare, 'rev-parse', job.source.ref);
      expect(git(e2e.bare, 'rev-list', '--count', `${job.source.ref}..main`)).not.toBe('0');

      e2e.model.setScript([{ text: 'Rebased on main' }]);
      await comment('maintainer', '@AgentJobs Rebase!');
      const [rebase] = await runsWhen(comments, 3);
      expect(rebase).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
      await e2e.api.waitUntil(job.id, (current) => current.summary === 'Rebased on main');
      expect(lastAsked()).toContain('asked on the pull request to rebase this job');
      expect(lastAsked()).toContain('was made again from main as it is now');

      // One commit on the base as it is now, holding every page the job wrote and the base's change.
      const head = git(e2e.bare, 'rev-parse', job.source.ref);
      expect(head).not.toBe(before);
      expect(git(e2e.bare, 'rev-list', '--parents', '-n', '1', head).split(' ')).toEqual([head, base]);
      const files = git(e2e.bare, 'ls-tree', '--name-only', head).split('\n');
      expect(files).toEqual(expect.arrayContaining(['README.md', 'verbose.md', 'quiet.md', 'intro.md']));
      expect(git(e2e.bare, 'show', `${head}:README.md`)).toContain('Welcome, all.');
      expect(e2e.double.pulls()).toHaveLength(1);
      expect(e2e.double.pulls()[0]).toMatchObject({ head: job.source.ref, state: 'open' });
      expect(e2e.double.comments().at(-1)).toEqual({
        number: pullNumber(),
        body: `Rebasing: the branch will be made again from main as it is now, with this job's changes re-applied, in the job's next run (now).\n\nJob: ${page(job.id)}`,
      });
    });

    it('retries: the last prompt runs again on the same job', async () => {
      e2e.model.setScript(writes('intro.md', '# Intro\n\nJust once.\n', 'Stopped it again'));
      await comment('maintainer', '@agentjobs retry');
      const [retry] = await runsWhen(comments, 4);
      expect(retry).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
      await e2e.api.waitUntil(job.id, (current) => current.summary === 'Stopped it again');
      // The last prompt that was not a command: the maintainer's follow-up, not the rebase.
      expect(lastAsked()).toContain("asked on the pull request to run this job's last prompt again");
      expect(lastAsked()).toContain('@agentjobs stop the intro from repeating');
      expect(e2e.double.comments().at(-1)).toEqual({
        number: pullNumber(),
        body: `Retrying: the job's last prompt runs again, in the job's next run (now).\n\nJob: ${page(job.id)}`,
      });
      expect(e2e.double.pulls()).toHaveLength(1);
    });

    it("stops on a maintainer's stop: the next merge opens a new pull request, and the job stays", async () => {
      await comment('maintainer', '@agentjobs stop');
      const [stop] = await runsWhen(comments, 5);
      expect(stop).toMatchObject({ outcome: 'skipped', reason: 'stopped', jobId: job.id });
      await expect.poll(() => e2e.double.comments().length, { timeout: 30_000 }).toBe(4);
      expect(e2e.double.comments().at(-1)).toEqual({
        number: pullNumber(),
        body: `Stopped: automation runs no longer add to this pull request; the next one opens a new pull request. A comment here that mentions @agentjobs still continues this job.\n\nJob: ${page(job.id)}`,
      });
      expect((await e2e.api.call('GET', `/job/${job.id}`)).job.status).toBe('completed');

      e2e.model.setScript(writes('loud.md', '# --loud\n', 'Document --loud'));
      await merge(14, "['--loud']");
      const [created] = await runsWhen(docs, 3);
      expect(created).toMatchObject({ outcome: 'created', reason: null });
      expect(created?.jobId).not.toBe(job.id);
      const fresh = await e2e.api.waitUntil(created?.jobId ?? '', (current) => current.status !== 'active');
      expect(fresh).toMatchObject({ status: 'completed', summary: 'Document --loud' });
      expect(fresh.prLink).not.toBe(job.prLink);
      expect(e2e.double.pulls()).toHaveLength(2);
      expect(e2e.double.pulls()[0]).toMatchObject({ head: job.source.ref, state: 'open' });

      // A person's follow-up on the stopped job's pull request still continues it.
      e2e.model.setScript(writes('faq.md', '# FAQ\n', 'Add a FAQ'));
      await comment('maintainer', '@agentjobs add a FAQ');
      const [followUp] = await runsWhen(comments, 6);
      expect(followUp).toMatchObject({ outcome: 'grouped', reason: null, jobId: job.id });
      await e2e.api.waitUntil(job.id, (current) => current.summary === 'Add a FAQ');
    });
  },
);
