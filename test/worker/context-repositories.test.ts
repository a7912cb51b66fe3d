/**
 * A job's run fetches the project's context repositories (docs/architecture.md#the-runs-phases) and records the
 * commits it read on the job: a local one on a named branch, and a remote one served over
 * authenticated git HTTP whose token appears nowhere (events, the job, any table but sealed, the
 * data directory with the mirrors' git config and the askpass script, the worker's log). One that
 * cannot be fetched fails the job with `context_repository_unavailable`, naming it. Real worker,
 * real agent, scripted model, on every database.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../../src/background/worker.js';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { removeContextRepository } from '../../src/operations/context-repositories.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http.js';
import { realAgentConfig, SECRETS, startRealWorker } from '../support/real-agent.js';
import { type ScriptedModelServer, startScriptedModel } from '../support/scripted-model.js';
import { haystacksOfService } from '../support/token-grep.js';
import { git, makeRepo, settledJob, tempDir } from '../support/worker.js';

const TOKEN = 'ctx-remote-token-8c3d1f5e0a9b4726';
const commit = (repo: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=Code', '-c', 'user.email=code@example.com', 'commit', '-q', '-m', file);
  return git(repo, 'rev-parse', 'HEAD');
};

describe.each(testDialects())('context repositories in a run on %s', (dialect) => {
  let dir: string;
  let t: TestStore;
  let model: ScriptedModelServer;
  let gitServer: GitHttpServer;
  let worker: Worker;
  let logs: string[];
  let project: Project;
  let docs: string;
  let releaseCommit: string;
  let apiCommit: string;
  const dataDir = () => path.join(dir, 'data');
  const secrets = () => createSecretBox(SECRETS.AGENTJOBS_SECRET_KEY);

  const runJob = async (projectId: string, prompt: string): Promise<Job> => {
    model.setScript([{ text: 'Read the code; nothing to change.' }]);
    const created = await t.store.jobs.create({
      projectId,
      prompt,
      model: 'openai-compatible:scripted',
      baseRef: 'main',
      repository: docs,
      draft: false,
    });
    return settledJob(t.store, projectId, created.id);
  };

  // Every git the worker starts goes through a wrapper that writes down its arguments first.
  const path0 = process.env.PATH;
  const gitArguments = () => path.join(dir, 'git-arguments.log');

  /** Adds `served` (a path on the git server) as the context repository `name`, behind the token. */
  const addServed = (name: string, served: string) =>
    t.store.contextRepositories.add(
      { projectId: project.id, name, repository: `${gitServer.url}/${served}`, ref: null, host: 'github' },
      { token: TOKEN, secrets: secrets() },
    );

  beforeAll(async () => {
    dir = tempDir('context-repositories');
    const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
    const wrappers = path.join(dir, 'bin');
    fs.mkdirSync(wrappers);
    fs.writeFileSync(
      path.join(wrappers, 'git'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${gitArguments()}'\nexec '${realGit}' "$@"\n`,
      { mode: 0o755 },
    );
    process.env.PATH = `${wrappers}:${path0}`;
    t = await openTestStore(dialect);
    docs = makeRepo(dir).repo;
    project = await t.store.projects.create({ name: 'Docs', repository: docs });
    // A local context repository read on its release branch, which is behind main.
    const code = path.join(dir, 'code');
    execFileSync('git', ['init', '-q', '-b', 'main', code]);
    commit(code, 'src/cli.ts', 'export const flags = ["--verbose"];\n');
    git(code, 'branch', 'release');
    releaseCommit = git(code, 'rev-parse', 'release');
    commit(code, 'src/cli.ts', 'export const flags = ["--verbose", "--dry-run"];\n');
    // A remote one behind a token, as a code host serves it.
    const apiWork = path.join(dir, 'api-work');
    execFileSync('git', ['init', '-q', '-b', 'main', apiWork]);
    apiCommit = commit(apiWork, 'openapi.yaml', 'openapi: 3.1.0\n');
    const served = path.join(dir, 'served', 'org');
    fs.mkdirSync(served, { recursive: true });
    git(dir, 'clone', '-q', '--bare', apiWork, path.join(served, 'api.git'));
    gitServer = await startGitHttpServer({ root: path.join(dir, 'served'), token: TOKEN });

    await t.store.contextRepositories.add({
      projectId: project.id,
      name: 'code',
      repository: code,
      ref: 'release',
      host: 'local',
    });
    await addServed('api', 'org/api.git');
    model = await startScriptedModel();
    ({ worker, logs } = await startRealWorker(realAgentConfig(dataDir(), model.url), t.store, 'context'));
  });
  afterAll(async () => {
    process.env.PATH = path0;
    await worker?.stop({ graceMs: 0 });
    await model?.close();
    await gitServer?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('records the commit of each context repository the run read', async () => {
    const job = await runJob(project.id, 'Document the CLI flags');
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect(job.contextRepositories).toEqual([
      { name: 'api', ref: 'main', commit: apiCommit },
      { name: 'code', ref: 'release', commit: releaseCommit },
    ]);
    // git asked for the token through askpass, with the user name GitHub takes.
    expect(
      gitServer.requests.some((request) => request.user === 'x-access-token' && request.status === 200),
    ).toBe(true);
    const mirror = path.join(dataDir(), 'mirrors', 'context', project.id, 'api.git');
    expect(git(mirror, 'config', 'remote.origin.url')).toBe(`${gitServer.url}/org/api.git`);
    expect(git(mirror, 'cat-file', '-t', apiCommit)).toBe('commit');

    // A project without context repositories: an empty list.
    const other = await t.store.projects.create({ name: 'Other', repository: docs });
    expect((await runJob(other.id, 'Nothing to read')).contextRepositories).toEqual([]);
  });

  it('never lets the token out', async () => {
    const jobs = (await t.store.jobs.list(project.id, { limit: 100 })).jobs.map((job) => job.id);
    // The search proves itself on a sealed project token; this project's repository is local.
    await t.store.projects.setHostToken(project.id, 'unrelated-project-token-0000', secrets());
    const haystacks = await haystacksOfService({
      databaseUrl: t.url,
      dataDir: dataDir(),
      texts: [['worker log', logs.join('\n')]],
      api: async (pathname) => {
        const id = pathname.split('/')[2] ?? '';
        return pathname.endsWith('/events')
          ? JSON.stringify(await t.store.events.list(id, 0, 1000))
          : JSON.stringify(await t.store.jobs.get(project.id, id));
      },
      jobs,
    });
    expect(
      haystacks.some(([where, text]) => where === 'table context_repositories' && text.includes('v1.')),
    ).toBe(true);
    // The git processes' arguments, the fetch of the remote one among them.
    const argumentsLog = fs.readFileSync(gitArguments(), 'utf8');
    expect(argumentsLog).toContain(`${gitServer.url}/org/api.git`);
    haystacks.push(['git arguments', argumentsLog]);
    for (const [where, text] of haystacks) expect(text.includes(TOKEN), where).toBe(false);
    for (const id of jobs) {
      expect(JSON.stringify(await t.store.events.list(id, 0, 1000))).not.toContain(TOKEN);
      expect(JSON.stringify(await t.store.jobs.get(project.id, id))).not.toContain(TOKEN);
    }
  });

  it('fails the job with context_repository_unavailable when one cannot be fetched, and removing it drops its mirror', async () => {
    await addServed('gone', 'org/missing.git');
    const job = await runJob(project.id, 'Document the missing code');
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('context_repository_unavailable');
    expect(job.error?.message).toContain('The context repository "gone" could not be fetched');
    expect(job.error?.message).not.toContain(TOKEN);
    await removeContextRepository(
      { store: t.store, mirrorsDir: path.join(dataDir(), 'mirrors') },
      project.id,
      'gone',
    );
    const mirrors = path.join(dataDir(), 'mirrors', 'context', project.id);
    await removeContextRepository(
      { store: t.store, mirrorsDir: path.join(dataDir(), 'mirrors') },
      project.id,
      'api',
    );
    expect(fs.existsSync(path.join(mirrors, 'api.git'))).toBe(false);
    expect(fs.existsSync(path.join(mirrors, 'code.git'))).toBe(true);
    expect((await t.store.contextRepositories.list(project.id)).map((repository) => repository.name)).toEqual(
      ['code'],
    );
  });
});
