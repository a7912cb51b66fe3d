import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { openDb } from '../../src/store/db.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';
import { runCli, type ServerProcess, startServerProcess } from '../support/processes.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

// The whole product against GitHub's protocols on loopback: the built server, the repository served
// over smart HTTP behind the token, the REST double of GitHub, the scripted model.
describe.each(testDialects())('a GitHub project end to end on %s', (dialect) => {
  const token = `ghp_${randomBytes(16).toString('hex')}`;
  let dir: string;
  let bare: string;
  let database: TestDatabase;
  let model: ScriptedModelServer;
  let gitServer: GitHttpServer;
  let double: GithubDouble;
  let server: ServerProcess;
  let env: Record<string, string>;
  let projectId: string;
  let key: string;
  const cliOutput: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-github-e2e-'));
    const work = path.join(dir, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    fs.writeFileSync(path.join(work, 'README.md'), '# Docs\n\nWelcome.\n');
    git(work, 'add', '-A');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
    bare = path.join(dir, 'served', 'org', 'repo.git');
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    git(dir, 'clone', '-q', '--bare', work, bare);

    gitServer = await startGitHttpServer({ root: path.join(dir, 'served'), token });
    double = await startGithubDouble({
      token,
      // As GitHub: a pull request's head must be a branch the repository has.
      hasBranch: (_owner, _repo, branch) => {
        try {
          git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
          return true;
        } catch {
          return false;
        }
      },
    });
    double.repository('org', 'repo');
    model = await startScriptedModel();
    database = await createTestDatabase(dialect);
    env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      LOG_LEVEL: 'debug',
    };
    // The server never sees the token in its environment: only the database has it, encrypted.
    server = await startServerProcess(env);
    const created = await runCli(
      [
        'project',
        'create',
        '--name',
        'Docs',
        '--host',
        'github',
        '--repo',
        `${gitServer.url}/org/repo.git`,
        '--api-url',
        double.url,
        '--base',
        'main',
        '--json',
      ],
      { ...env, GITHUB_TOKEN: token },
    );
    cliOutput.push(created.stdout, created.stderr);
    expect(created.code, created.stderr).toBe(0);
    projectId = JSON.parse(created.stdout).id;
    key = JSON.parse((await runCli(['key', 'create', '--project', projectId, '--json'], env)).stdout).key;
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    await gitServer?.close();
    await double?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const api = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await fetch(`${server.url}/v2/agent/${projectId}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await response.json()) as Job;
  };
  const waitUntil = async (jobId: string, done: (job: Job) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await api('GET', `/job/${jobId}`);
      if (done(job)) return job;
      if (Date.now() > deadline)
        throw new Error(`job still ${job.status}/${job.phase}: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const finished = (job: Job) => job.status !== 'active';
  const jobs: string[] = [];

  it('says the token can read, fetch, push and open pull requests', async () => {
    const checked = await runCli(['project', 'check', projectId, '--json'], env);
    cliOutput.push(checked.stdout, checked.stderr);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ ok: true, host: 'github' });
  });

  it('opens the pull request on GitHub, and a follow-up updates the same one', async () => {
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'faq.md', content: '# FAQ\n\nAsk away.\n' } }] },
      { text: 'Add an FAQ page\n\nI added faq.md.' },
    ]);
    const created = await api('POST', '/job', { prompt: 'Add an FAQ page' });
    jobs.push(created.id);
    const job = await waitUntil(created.id, finished);
    expect(job).toMatchObject({
      status: 'completed',
      error: null,
      prLink: 'https://github.com/org/repo/pull/1',
    });
    expect(job.source.repository).toBe(`${gitServer.url}/org/repo.git`);
    // The branch arrived in the served repository; GitHub has one pull request for it.
    expect(git(bare, 'diff', '--name-only', `main...${job.source.ref}`)).toBe('faq.md');
    const pulls = double.repository('org', 'repo').pulls;
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({
      head: job.source.ref,
      base: 'main',
      title: 'Add an FAQ page',
      state: 'open',
    });

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
    expect(double.repository('org', 'repo').pulls).toHaveLength(1);
    expect(double.requests.some((r) => r.method === 'PATCH' && r.path === '/repos/org/repo/pulls/1')).toBe(
      true,
    );
  });

  it('fails a job with a clear code_host_error when the repository is archived', async () => {
    double.repository('org', 'repo', { archived: true });
    model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'more.md', content: 'more\n' } }] },
      { text: 'More' },
    ]);
    const created = await api('POST', '/job', { prompt: 'Add more' });
    jobs.push(created.id);
    const job = await waitUntil(created.id, finished);
    double.repository('org', 'repo', { archived: false });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('code_host_error');
    expect(job.error?.message).toMatch(/org\/repo is archived/);
  });

  it('leaves the token in no log line, event, job, database row or file', async () => {
    const haystacks: [string, string][] = [];
    haystacks.push(['server log', server.output.join('\n')], ['cli output', cliOutput.join('\n')]);
    for (const id of jobs) {
      haystacks.push([`job ${id}`, JSON.stringify(await api('GET', `/job/${id}`))]);
      const events = await fetch(`${server.url}/v2/agent/${projectId}/job/${id}/events`, {
        headers: { authorization: `Bearer ${key}` },
      });
      haystacks.push([`events of ${id}`, await events.text()]);
    }
    const db = openDb({ url: database.url });
    try {
      const tables =
        db.dialect === 'postgres'
          ? (
              await sql<{
                name: string;
              }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
                db.kysely,
              )
            ).rows
          : (
              await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
                db.kysely,
              )
            ).rows;
      expect(tables.map((t) => t.name)).toContain('projects');
      for (const { name } of tables) {
        const rows = (await sql`select * from ${sql.table(name)}`.execute(db.kysely)).rows;
        haystacks.push([`table ${name}`, JSON.stringify(rows)]);
      }
      const project = (
        await sql<{ host_token_encrypted: string }>`select host_token_encrypted from projects`.execute(
          db.kysely,
        )
      ).rows[0];
      expect(project?.host_token_encrypted).toMatch(/^v1\./);
    } finally {
      await db.close();
    }
    // Every file the service wrote: mirrors (their .git/config), the askpass script, the database.
    const walk = (folder: string): string[] =>
      fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(folder, entry.name);
        return entry.isDirectory() ? walk(full) : [full];
      });
    for (const file of walk(path.join(dir, 'data')))
      haystacks.push([file, fs.readFileSync(file).toString('latin1')]);

    expect(haystacks.length).toBeGreaterThan(10);
    for (const [where, text] of haystacks)
      expect(text.includes(token), `token found in ${where}`).toBe(false);
  });
});
