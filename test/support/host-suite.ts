import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { createTestDatabase, type TestDatabase, testDialects } from './db.js';
import { jobApi } from './e2e.js';
import { type GitHttpServer, startGitHttpServer } from './git-http.js';
import type { E2eDouble, E2eHost } from './host-e2e.js';
import { runCli, type ServerProcess, startServerProcess } from './processes.js';
import {
  heldUntil,
  type ScriptedModelServer,
  type ScriptedTurn,
  startScriptedModel,
} from './scripted-model.js';
import { haystacksOfService } from './token-grep.js';

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

/**
 * The whole product against a host's protocols on loopback: the built server, the repository served
 * over smart HTTP behind the token, the host's REST double, the scripted model; on every dialect.
 * Each host's test file runs it, so the hosts run in parallel.
 */
export function hostEndToEnd(host: E2eHost): void {
  describe.each(testDialects())(`a ${host.kind} project end to end on %s`, (dialect) => {
    let dir: string;
    let bare: string;
    let database: TestDatabase;
    let model: ScriptedModelServer;
    let gitServer: GitHttpServer;
    let double: E2eDouble;
    let server: ServerProcess;
    let env: Record<string, string>;
    let projectId: string;
    let key: string;
    const servers: ServerProcess[] = [];
    const cliOutput: string[] = [];
    const jobs: string[] = [];

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-${host.kind}-e2e-`));
      const work = path.join(dir, 'work');
      execFileSync('git', ['init', '-q', '-b', 'main', work]);
      fs.writeFileSync(path.join(work, 'README.md'), '# Docs\n\nWelcome.\n');
      git(work, 'add', '-A');
      git(work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
      bare = path.join(dir, 'served', 'org', 'repo.git');
      fs.mkdirSync(path.dirname(bare), { recursive: true });
      git(dir, 'clone', '-q', '--bare', work, bare);

      gitServer = await startGitHttpServer({
        root: path.join(dir, 'served'),
        token: host.token,
        ...(host.gitUsername ? { username: host.gitUsername } : {}),
      });
      // As the hosts do: a pull request's head must be a branch the repository has.
      double = await host.start((branch) => {
        try {
          git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
          return true;
        } catch {
          return false;
        }
      });
      model = await startScriptedModel();
      database = await createTestDatabase(dialect);
      env = {
        AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
        DATABASE_URL: database.url,
        AGENTJOBS_MODEL: 'openai-compatible:scripted',
        OPENAI_COMPATIBLE_BASE_URL: model.url,
        LOG_LEVEL: 'debug',
        // Short leases, so the job of a killed worker is taken again within seconds.
        AGENTJOBS_LEASE_SECONDS: '5',
        AGENTJOBS_POLL_SECONDS: '1',
        // The poll of open pull requests' states (no automation here watches a repository).
        AGENTJOBS_REPOSITORY_POLL_SECONDS: '1',
      };
      // The server never sees the token in its environment: only the database has it, encrypted.
      server = await startServerProcess(env);
      servers.push(server);
      const created = await runCli(
        [
          'project',
          'create',
          '--name',
          'Docs',
          '--host',
          host.kind,
          '--repo',
          `${gitServer.url}/org/repo.git`,
          '--api-url',
          double.url,
          '--base',
          'main',
          '--json',
        ],
        { ...env, [host.tokenEnv]: host.token },
      );
      cliOutput.push(created.stdout, created.stderr);
      expect(created.code, created.stderr).toBe(0);
      projectId = JSON.parse(created.stdout).id;
      key = JSON.parse((await runCli(['key', 'create', '--project', projectId, '--json'], env)).stdout).key;
    });

    afterAll(async () => {
      for (const running of servers) await running.stop('SIGKILL');
      await model?.close();
      await gitServer?.close();
      await double?.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const { call: api, waitUntil } = jobApi(() => ({ url: server.url, projectId, key }), {
      timeoutMs: 30_000,
    });
    const finished = (job: Job) => job.status !== 'active';
    const writes = (file: string, text: string) => [
      { toolCalls: [{ name: 'write_file', input: { path: file, content: text } }] },
      { text: `Add ${file}` },
    ];
    const createJob = async (prompt: string) => {
      const { job: created } = await api('POST', '/job', { prompt });
      jobs.push(created.id);
      return created;
    };

    it('says the token can read, fetch, push and open pull requests', async () => {
      const checked = await runCli(['project', 'check', projectId, '--json'], env);
      cliOutput.push(checked.stdout, checked.stderr);
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
      const result = JSON.parse(checked.stdout);
      expect(result).toMatchObject({ ok: true, host: host.kind });
      expect(result.checks.map((check: { name: string }) => check.name)).toEqual([
        'read',
        'git',
        'push',
        'pull_request',
      ]);
    });

    it('opens the pull request on the host, and a follow-up updates the same one', async () => {
      model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n\nAsk away.\n' } }] },
        { text: 'Add an FAQ page\n\nI added faq.md.' },
      ]);
      const created = await createJob('Add an FAQ page');
      const job = await waitUntil(created.id, finished);
      expect(job).toMatchObject({ status: 'completed', error: null, prLink: double.pullUrl(1) });
      expect(job.source.repository).toBe(`${gitServer.url}/org/repo.git`);
      // The branch arrived in the served repository; the host has one pull request for it.
      expect(git(bare, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('faq.md');
      expect(double.pulls()).toEqual([
        expect.objectContaining({
          head: job.source.ref,
          base: 'main',
          title: 'Add an FAQ page',
          state: 'open',
        }),
      ]);
      if (host.gitUsername)
        expect(
          gitServer.requests.filter((r) => r.user !== null).every((r) => r.user === host.gitUsername),
        ).toBe(true);

      model.setScript([
        {
          toolCalls: [
            { name: 'edit_file', input: { path: 'faq.md', old_text: 'Ask away.', new_text: 'Ask us.' } },
          ],
        },
        { text: 'Reworded the FAQ' },
      ]);
      await api('POST', `/job/${job.id}/message`, { prompt: 'Say "Ask us."' });
      const again = await waitUntil(job.id, (j) => finished(j) && j.summary === 'Reworded the FAQ');
      expect(again).toMatchObject({ status: 'completed', prLink: job.prLink });
      expect(git(bare, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('2');
      expect(double.pulls()).toHaveLength(1);
      // The follow-up's answer is a reply, not a new name: the pull request keeps the job's title.
      expect(again.title).toBe('Add an FAQ page');
      expect(double.pulls()[0]?.title).toBe('Add an FAQ page');
      expect(double.requests.some((r) => double.isUpdate(r.method, r.path, 1))).toBe(true);
    });

    it('keeps keys in the prompt out of the pull request it sends and the commit it pushes', async () => {
      const apiKey = `ajs_${'K3y'.repeat(8)}`;
      const providerKey = `sk-ant-api03-${'p'.repeat(24)}`;
      const before = double.requests.length;
      model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'keys.md', content: '# Keys\n\nRotated.\n' } }] },
        // A reply, not a name: the title falls back to the prompt's first line.
        { text: 'Done. I rotated them.' },
      ]);
      const created = await createJob(`Rotate ${apiKey} and ${providerKey}\n\nThe old ones: ${apiKey}.`);
      const job = await waitUntil(created.id, finished);
      expect(job).toMatchObject({ status: 'completed', title: 'Rotate ajs_[redacted] and [redacted]' });
      const sent = {
        pullRequest: double.requests
          .slice(before)
          .map((request) => request.body)
          .join('\n'),
        commitMessage: git(bare, 'log', '-1', '--format=%B', job.source.ref),
      };
      for (const [where, text] of Object.entries(sent)) {
        expect(text, `${where} holds a key`).not.toContain(apiKey);
        expect(text, `${where} holds a key`).not.toContain(providerKey);
        expect(text, `${where} says what was there`).toContain('ajs_[redacted]');
      }
    });

    it('fails a job with a clear code_host_error when the repository is archived or out of sight', async () => {
      double.archive(true);
      model.setScript(writes('more.md', 'more\n'));
      const archived = await waitUntil((await createJob('Add more')).id, finished);
      double.archive(false);
      expect(archived.status).toBe('failed');
      expect(archived.error?.code).toBe('code_host_error');
      expect(archived.error?.message).toMatch(host.archivedMessage);

      // The first request to the host is the create: it answers 404.
      double.failNotFound();
      model.setScript(writes('gone.md', 'gone\n'));
      const hidden = await waitUntil((await createJob('Add gone')).id, finished);
      expect(hidden).toMatchObject({ status: 'failed', prLink: null });
      expect(hidden.error?.code).toBe('code_host_error');
      expect(hidden.error?.message).toMatch(/\(404\).*does not exist, or the token cannot see it/);
    });

    it('fails a job with a clear repository_error when branch protection refuses the push', async () => {
      // A pre-receive hook in the served repository refuses as the host does (git prints it as remote:).
      const hook = path.join(bare, 'hooks', 'pre-receive');
      const refusal = host.protectedRefusal.replace('BRANCH', 'agentjobs/x');
      fs.writeFileSync(hook, `#!/bin/sh\necho '${refusal}' >&2\nexit 1\n`, { mode: 0o755 });
      try {
        model.setScript(writes('guarded.md', 'guarded\n'));
        const job = await waitUntil((await createJob('Add guarded')).id, finished);
        expect(job).toMatchObject({ status: 'failed', prLink: null });
        expect(job.error?.code).toBe('repository_error');
        expect(job.error?.message).toMatch(/refuses pushes to agentjobs\/.*branch protection rule/);
        expect(job.error?.message).toContain(refusal.slice(0, 20));
      } finally {
        fs.rmSync(hook);
      }
    });

    // sqlite: the host never saw the create (dropped), so the next run opens the pull request.
    // postgres: the host opened it but the worker died before hearing so; the next run reuses it.
    const outcome = dialect === 'sqlite' ? 'drop' : 'answer';
    it(`ends with one pull request when the worker is killed between push and pull request (${outcome})`, async () => {
      const before = double.pulls().length;
      const held = double.hold(double.isCreate);
      model.setScript(writes('crash.md', 'written once\n'));
      const job = await createJob('Write crash.md');
      const request = await held;
      // The push is done (the create comes after it): the branch is on the host, the PR is not.
      expect(git(bare, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('crash.md');
      await server.stop('SIGKILL');
      request.release(outcome);

      model.setScript(writes('crash.md', 'written once\n'));
      server = await startServerProcess(env);
      servers.push(server);
      const done = await waitUntil(job.id, finished);
      const pulls = double.pulls().filter((pull) => pull.head === job.source.ref);
      expect(pulls).toHaveLength(1);
      expect(double.pulls()).toHaveLength(before + 1);
      expect(done).toMatchObject({
        status: 'completed',
        error: null,
        prLink: double.pullUrl(pulls[0]?.number ?? 0),
      });
      expect(git(bare, 'rev-list', '--count', `main..${job.source.ref}`)).toBe('1');
    });

    it("keeps a person's commits on the branch, never groups into a closed pull request, and shows each run's fate", async () => {
      const { job: automation } = await api('POST', '/automations', {
        name: 'Guide',
        trigger: { type: 'manual' },
        prompt: 'Write the guide',
      });
      const runs = async () =>
        (await api('GET', `/automations/${automation.id}/runs`)).job as unknown as {
          runs: { outcome: string; status: string; jobId: string }[];
        };
      const statuses = async () => (await runs()).runs.map((run) => [run.outcome, run.status]);
      const trigger = async () => (await api('POST', `/automations/${automation.id}/trigger`, {})).job;
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      model.setScript([
        heldUntil(gate, writes('guide.md', '# Guide\n')[0] as ScriptedTurn),
        { text: 'Guide' },
      ]);
      const first = await trigger();
      jobs.push(first.id);
      await expect.poll(statuses, { timeout: 30_000 }).toEqual([['created', 'running']]);
      release();
      const written = await waitUntil(first.id, finished);
      expect(await statuses()).toEqual([['created', 'review_needed']]);

      // A reviewer pushes a fix to the pull request's branch.
      const clone = path.join(dir, `reviewer-${dialect}`);
      git(dir, 'clone', '-q', '--branch', written.source.ref, bare, clone);
      fs.writeFileSync(path.join(clone, 'typo.md'), 'Fixed by a person.\n');
      git(clone, 'add', '-A');
      git(clone, '-c', 'user.name=Reviewer', '-c', 'user.email=r@e', 'commit', '-q', '-m', 'Fix a typo');
      git(clone, 'push', '-q', 'origin', written.source.ref);
      const human = git(clone, 'rev-parse', 'HEAD');

      model.setScript(writes('guide.md', '# Guide\n\nMore.\n'));
      await trigger();
      await waitUntil(first.id, (job) => finished(job) && job.summary === 'Add guide.md');
      expect(await statuses()).toEqual([
        ['grouped', 'review_needed'],
        ['created', 'review_needed'],
      ]);
      // The person's commit is under the run's: it was built on, not pushed over.
      git(bare, 'merge-base', '--is-ancestor', human, written.source.ref);
      expect(git(bare, 'show', `${written.source.ref}:typo.md`)).toBe('Fixed by a person.');

      // Closed without merge: the next run makes a new job and a new pull request.
      const closedNumber = Number(written.prLink?.split('/').at(-1));
      double.finishPull(closedNumber, 'closed');
      model.setScript(writes('guide.md', '# Guide, again\n'));
      const second = await trigger();
      jobs.push(second.id);
      expect(second.id).not.toBe(first.id);
      const reopened = await waitUntil(second.id, finished);
      const newNumber = Number(reopened.prLink?.split('/').at(-1));
      expect(newNumber).not.toBe(closedNumber);
      expect(double.pulls().find((pull) => pull.number === closedNumber)?.state).toBe('closed');
      expect(await statuses()).toEqual([
        ['created', 'review_needed'],
        ['grouped', 'closed'],
        ['created', 'closed'],
      ]);

      // Merged on the host: the poll of open pull requests learns it.
      double.finishPull(newNumber, 'merged');
      await expect.poll(statuses, { timeout: 30_000 }).toEqual([
        ['created', 'accepted'],
        ['grouped', 'closed'],
        ['created', 'closed'],
      ]);
    });

    it('leaves the token in no log line, event, job, database row or file', async () => {
      const haystacks = await haystacksOfService({
        databaseUrl: database.url,
        dataDir: path.join(dir, 'data'),
        texts: [
          ...servers.map(
            (running, index) => [`server log ${index}`, running.output.join('\n')] as [string, string],
          ),
          ['cli output', cliOutput.join('\n')],
        ],
        api: async (pathname) =>
          (
            await fetch(`${server.url}/v2/agent/${projectId}${pathname}`, {
              headers: { authorization: `Bearer ${key}` },
            })
          ).text(),
        jobs,
      });
      expect(haystacks.length).toBeGreaterThan(10);
      for (const [where, text] of haystacks)
        expect(text.includes(host.token), `token found in ${where}`).toBe(false);
    });
  });
}
