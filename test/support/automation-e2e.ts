/**
 * Automations end to end against a code host's double (docs/automations.md): the built
 * server over real HTTP (receiver, dispatcher, worker), the docs repository `org/repo` and the
 * product repository `acme/product` served over authenticated git HTTP, the host's REST double
 * whose pages live at the git server's address (so the hooks it sends name the served
 * repositories), the scripted model and a fresh database. The project, its key, its context
 * repository `product` and its hook secret are made through the built CLI, as a user would.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AutomationRun } from '../../src/domain/automation.js';
import { createTestDatabase, type TestDatabase, type TestDialect } from './db.js';
import { jobApi } from './e2e.js';
import { type GitHttpServer, startGitHttpServer } from './git-http.js';
import { startGiteaDouble } from './gitea-double.js';
import { type GithubRole, startGithubDouble } from './github-double.js';
import { startGitlabDouble } from './gitlab-double.js';
import type { HookHostName, HookSender } from './host-hooks.js';
import { runCli, type ServerProcess, startServerProcess } from './processes.js';
import { type ScriptedModelServer, startScriptedModel } from './scripted-model.js';

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
    .toString()
    .trim();

/** A pull request of `org/repo` as every host's double holds it. */
export interface AutomationPull {
  number: number;
  title: string;
  body: string;
  head: string;
  state: string;
}

/** The double as these tests use it: its hooks, its requests, the pull requests of `org/repo`. */
export interface AutomationDouble extends HookSender {
  url: string;
  requests: { method: string; path: string; body?: string }[];
  pulls(): AutomationPull[];
  /** The comments the service posted on `org/repo`'s threads (a merge request's notes on GitLab). */
  comments(): { number: number; body: string }[];
  /** GitHub's only: makes commenting answer 500 while `refuse` holds. */
  refuseComments?(refuse: boolean): void;
  /** GitHub's only: the comments the service posted on another repository's threads (`acme/product`). */
  commentsOn?(fullName: string): { number: number; body: string }[];
  /** GitHub's only: gives `login` a role on a repository, as GitHub's permission endpoint reports it. */
  grant?(fullName: string, login: string, role: GithubRole): void;
  close(): Promise<void>;
}

const HOSTS: Record<HookHostName, { tokenEnv: string; token: string; gitUsername?: string }> = {
  github: { tokenEnv: 'GITHUB_TOKEN', token: `ghp_${'g1'.repeat(16)}` },
  gitlab: { tokenEnv: 'GITLAB_TOKEN', token: `glpat-${'l2'.repeat(10)}`, gitUsername: 'oauth2' },
  gitea: { tokenEnv: 'GITEA_TOKEN', token: 'e3'.repeat(20) },
};

async function startDouble(
  host: HookHostName,
  webBase: string,
  hasBranch: (branch: string) => boolean,
): Promise<AutomationDouble> {
  const { token } = HOSTS[host];
  if (host === 'github') {
    const double = await startGithubDouble({
      token,
      htmlBase: webBase,
      hasBranch: (_o, _r, b) => hasBranch(b),
    });
    const repository = double.repository('org', 'repo');
    // The maintainer who comments in the tests may write to the docs, as GitHub reports it when asked.
    repository.collaborators.maintainer = 'write';
    const named = (fullName: string) => double.repository(...(fullName.split('/') as [string, string]));
    return {
      ...double,
      pulls: () => repository.pulls.map((pull) => ({ ...pull, body: pull.body ?? '' })),
      comments: () => repository.comments,
      refuseComments: (refuse) => {
        repository.refuseComments = refuse;
      },
      commentsOn: (fullName) => named(fullName).comments,
      grant: (fullName, login, role) => {
        named(fullName).collaborators[login] = role;
      },
    };
  }
  if (host === 'gitea') {
    const double = await startGiteaDouble({ token, webBase, hasBranch: (_o, _r, b) => hasBranch(b) });
    const repository = double.repository('org', 'repo');
    return {
      ...double,
      pulls: () => repository.pulls.map((pull) => ({ ...pull, body: pull.body ?? '' })),
      comments: () => repository.comments,
    };
  }
  const double = await startGitlabDouble({ token, webBase, hasBranch: (_p, b) => hasBranch(b) });
  const project = double.project('org/repo', { accessLevel: 30 });
  return {
    ...double,
    pulls: () =>
      project.mergeRequests.map((request) => ({
        number: request.iid,
        title: request.title,
        body: request.description ?? '',
        head: request.source_branch,
        state: request.state === 'opened' ? 'open' : request.state,
      })),
    comments: () => project.notes.map((note) => ({ number: note.iid, body: note.body })),
  };
}

/** The suite's fixture; its fields are there from its `beforeAll` on. */
export interface AutomationEndToEnd {
  dir: string;
  double: AutomationDouble;
  server: ServerProcess;
  model: ScriptedModelServer;
  projectId: string;
  /** The project's hook secret, as `project hook-secret` showed it. */
  secret: string;
  /** The host's token the project and its context repository were given. */
  token: string;
  /** The receiver's URL for this host. */
  hookUrl: string;
  /** The served content repository (bare). */
  bare: string;
  /** The product's repository as served: what `context add` was given. */
  productUrl: string;
  /** Commits `file` to the product's `main` and pushes it to the served repository; its id. */
  commitToProduct(file: string, content: string, message: string): string;
  api: ReturnType<typeof jobApi>;
  /** The automation's runs, newest first. */
  runs(automationId: string): Promise<AutomationRun[]>;
}

/** Registers the suite's hooks for `host` on `dialect` and returns its fixture. */
export function useAutomationEndToEnd(host: HookHostName, dialect: TestDialect): AutomationEndToEnd {
  const { tokenEnv, token, gitUsername } = HOSTS[host];
  let database: TestDatabase | undefined;
  let gitServer: GitHttpServer | undefined;
  let server: ServerProcess | undefined;
  let model: ScriptedModelServer | undefined;
  let double: AutomationDouble | undefined;
  let product = '';
  const fixture = {
    commitToProduct(file: string, content: string, message: string) {
      fs.writeFileSync(path.join(product, file), content);
      git(product, 'add', '-A');
      git(product, 'commit', '-q', '-m', message);
      git(product, 'push', '-q', 'origin', 'main');
      return git(product, 'rev-parse', 'HEAD');
    },
    api: jobApi(() => ({ url: fixture.server.url, projectId: fixture.projectId, key }), {
      timeoutMs: 60_000,
    }),
    async runs(automationId: string) {
      const { job: body } = await fixture.api.call('GET', `/automations/${automationId}/runs`);
      return (body as unknown as { runs: AutomationRun[] }).runs;
    },
    token,
  } as AutomationEndToEnd;
  let key = '';

  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-auto-${host}-`));
    fixture.dir = dir;
    const served = path.join(dir, 'served');
    const seed = (name: string, files: Record<string, string>) => {
      const work = path.join(dir, name);
      execFileSync('git', ['init', '-q', '-b', 'main', work]);
      for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(work, file), content);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', 'init');
      return work;
    };
    const docs = seed('docs', { 'README.md': '# Docs\n\nWelcome.\n' });
    fixture.bare = path.join(served, 'org', 'repo.git');
    fs.mkdirSync(path.join(served, 'org'), { recursive: true });
    git(dir, 'clone', '-q', '--bare', docs, fixture.bare);
    const productWork = seed('product-seed', { 'cli.ts': 'export const flags = [];\n' });
    const productBare = path.join(served, 'acme', 'product.git');
    fs.mkdirSync(path.join(served, 'acme'), { recursive: true });
    git(dir, 'clone', '-q', '--bare', productWork, productBare);
    product = path.join(dir, 'product');
    git(dir, 'clone', '-q', productBare, product);

    gitServer = await startGitHttpServer({
      root: served,
      token,
      ...(gitUsername ? { username: gitUsername } : {}),
    });
    fixture.productUrl = `${gitServer.url}/acme/product.git`;
    double = await startDouble(host, gitServer.url, (branch) => {
      try {
        git(fixture.bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
        return true;
      } catch {
        return false;
      }
    });
    fixture.double = double;
    model = await startScriptedModel();
    fixture.model = model;
    database = await createTestDatabase(dialect);
    const env = {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_POLL_SECONDS: '1',
      // These suites drive every run by a webhook and count the runs; the poller (every 3 s for a new
      // branch, the fallback for a missed hook) would record the commits they push without one as
      // runs of their own, sooner or later depending on the machine's load.
      AGENTJOBS_REPOSITORY_POLL_SECONDS: '86400',
      AGENTJOBS_LOCAL_REPOSITORY_POLL_SECONDS: '86400',
    };
    server = await startServerProcess(env);
    fixture.server = server;
    const cli = async (args: string[], extra: Record<string, string> = {}) => {
      const result = await runCli([...args, '--json'], { ...env, ...extra });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const withToken = { [tokenEnv]: token };
    const created = await cli(
      [
        'project',
        'create',
        '--name',
        'Docs',
        '--host',
        host,
        '--base',
        'main',
        '--api-url',
        double.url,
      ].concat(['--repo', `${gitServer.url}/org/repo.git`]),
      withToken,
    );
    fixture.projectId = created.id;
    key = (await cli(['key', 'create', '--project', created.id])).key;
    await cli(
      ['project', 'context', 'add', created.id, '--name', 'product', '--ref', 'main', '--host', host].concat([
        '--repo',
        fixture.productUrl,
        '--token-env',
        tokenEnv,
      ]),
      withToken,
    );
    const hook = await cli(['project', 'hook-secret', created.id]);
    fixture.secret = hook.secret;
    fixture.hookUrl = `${server.url}/v2/hooks/${created.id}/${host}`;
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await model?.close();
    await double?.close();
    await gitServer?.close();
    await database?.drop();
    if (fixture.dir) fs.rmSync(fixture.dir, { recursive: true, force: true });
  });

  return fixture;
}
