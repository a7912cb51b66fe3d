import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { createGiteaHost, giteaDraftTitle, giteaTarget } from '../../src/hosts/gitea.js';
import { startGiteaDouble } from '../support/gitea-double.js';
import { pullRequestOf, useHostDouble } from '../support/host-double-fixture.js';
import { hostProject } from '../support/host-projects.js';
import { remoteHostCases } from '../support/remote-host-cases.js';

const TOKEN = randomBytes(20).toString('hex');

describe('gitea settings', () => {
  const target = (repository: string, settings: Record<string, unknown> = {}) =>
    giteaTarget(hostProject('gitea', repository, settings));

  it('derives the instance and owner/repo from the repository URL', () => {
    expect(target('https://gitea.example.com/Org/Docs.git')).toEqual({
      baseUrl: 'https://gitea.example.com',
      owner: 'Org',
      repo: 'Docs',
    });
    // An instance served under a sub-path (ROOT_URL https://example.com/git/).
    expect(target('https://example.com/git/team/site')).toEqual({
      baseUrl: 'https://example.com/git',
      owner: 'team',
      repo: 'site',
    });
    expect(target('/srv/x', { apiUrl: 'http://127.0.0.1:9/api/v1', owner: 'o', repo: 'r' })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      owner: 'o',
      repo: 'r',
    });
    expect(() => target('https://gitea.example.com/lonely')).toThrow(/OWNER\/REPO/);
    expect(() => target('https://gitea.example.com/a/b', { owner: 'a/b' })).toThrow(/owner/);
  });

  it('writes a draft as Gitea does, once', () => {
    expect(giteaDraftTitle('Fix links', true)).toBe('WIP: Fix links');
    expect(giteaDraftTitle('[WIP] Fix links', true)).toBe('[WIP] Fix links');
    expect(giteaDraftTitle('Fix links', false)).toBe('Fix links');
  });
});

describe('gitea host against its double', () => {
  const remote = useHostDouble({
    name: 'gitea-host',
    token: TOKEN,
    start: (token) => startGiteaDouble({ token }),
    reset: (double) => double.repository('org', 'repo', { archived: false, push: true }),
    // Nothing of the request (its headers hold the token) rides along.
    causeless: true,
  });
  const { failure } = remote;

  const host = (retry: { baseMs?: number; maxWaitSeconds?: number } = {}) =>
    createGiteaHost({
      secret: remote.lookup,
      askpassDir: remote.askpassDir,
      retry: { baseMs: 5, ...retry },
    });
  const project = (repo = 'repo'): Project =>
    hostProject('gitea', `${remote.gitServer.url}/org/repo.git`, {
      apiUrl: remote.double.url,
      owner: 'org',
      repo,
    });
  const open = (branch: string, options: { draft?: boolean; project?: Project } = {}) =>
    host().openOrUpdatePullRequest(
      pullRequestOf(branch, options.project ?? project(), options.draft ?? false),
    );
  remoteHostCases({
    label: 'Gitea',
    remote,
    host,
    project: () => project(),
    transient: [
      ['server_error', 500],
      ['service_unavailable', 503],
    ],
    outage: /Gitea failed \(500\) while opening the pull request after retries/,
    waitTooLong: /Gitea's rate limit stopped opening the pull request/,
    unreachable: {
      message: /Gitea could not be reached while opening the pull request: ECONNREFUSED/,
      project: (apiUrl) => hostProject('gitea', 'https://gitea.example.com/org/repo', { apiUrl }),
    },
    wrongToken: 'wrong-token-0000000000000000',
    refusedToken: /invalid, expired or revoked/,
    gitUsername: 'agentjobs',
  });

  it('opens a draft pull request as Gitea writes it, and keeps it a draft when updating', async () => {
    const link = await open('agentjobs/draft', { draft: true });
    expect(link.url).toBe(`https://gitea.example.com/org/repo/pulls/${link.number}`);
    const pull = remote.double.repository('org', 'repo').pulls.at(-1);
    expect(pull).toMatchObject({ title: 'WIP: Change agentjobs/draft', head: 'agentjobs/draft' });
    expect(await open('agentjobs/draft')).toEqual(link);
    expect(pull?.title).toBe('WIP: Change agentjobs/draft');
    expect(remote.double.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      'POST 201',
      'POST 409',
      'GET 200',
      'PATCH 201',
    ]);
  });

  it('finds the pull request of a branch past the first page of open ones', async () => {
    const repository = remote.double.repository('org', 'repo');
    const now = new Date().toISOString();
    const first = await open('agentjobs/old');
    for (let index = 0; index < 60; index++) {
      repository.pulls.push({
        number: repository.pulls.length + 1,
        title: `Other ${index}`,
        body: '',
        head: `feature/${index}`,
        base: 'main',
        state: 'open',
        created_at: now,
        updated_at: now,
      });
    }
    remote.double.requests.length = 0;
    expect(await open('agentjobs/old')).toEqual(first);
    expect(remote.double.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual([
      '/api/v1/repos/org/repo/pulls?state=open&page=1&limit=50',
      '/api/v1/repos/org/repo/pulls?state=open&page=2&limit=50',
    ]);
  });

  it('explains a repository it cannot see (404), no write access or scope (403), and an archive (423)', async () => {
    const missing = await failure(open('agentjobs/x', { project: project('gone') }));
    expect(missing.message).toMatch(/no repository org\/gone .*does not exist, or the token cannot see it/);

    remote.double.repository('org', 'repo', { push: false });
    const denied = await failure(open('agentjobs/denied'));
    expect(denied.message).toMatch(/403.*write:repository scope.*write access/);

    remote.double.repository('org', 'repo', { push: true });
    remote.double.fail('forbidden');
    const scope = await failure(open('agentjobs/scope'));
    expect(scope.message).toMatch(/Gitea said: token does not have at least one of required scope/);

    remote.double.repository('org', 'repo', { archived: true });
    const archived = await failure(open('agentjobs/archived'));
    expect(archived.message).toMatch(/org\/repo is archived, so it is read-only.*repo is archived/);
  });

  it('says what a token lacks', async () => {
    remote.double.repository('org', 'repo', { push: false });
    const readOnly = await host().check?.(project());
    expect(readOnly?.find((c) => c.name === 'push')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/collaborator with Write access/),
    });
    remote.double.repository('org', 'repo', { push: true, archived: true });
    const archived = await host().check?.(project());
    expect(archived?.find((c) => c.name === 'push')?.detail).toMatch(/archived/);
  });
});
