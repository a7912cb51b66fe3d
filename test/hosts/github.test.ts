import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { createGithubHost, githubTarget } from '../../src/hosts/github.js';
import { startGithubDouble } from '../support/github-double.js';
import { pullRequestOf, useHostDouble } from '../support/host-double-fixture.js';
import { hostProject } from '../support/host-projects.js';
import { type RetrySettings, remoteHostCases } from '../support/remote-host-cases.js';
import { tempDir } from '../support/worker.js';

const TOKEN = `ghp_${randomBytes(12).toString('hex')}`;

const projectOf = (settings: Record<string, unknown>, repository = 'https://github.com/org/repo'): Project =>
  hostProject('github', repository, settings);

describe('github settings', () => {
  it('derives the API and owner/repo from the repository URL', () => {
    expect(githubTarget(projectOf({}, 'https://github.com/Org/Docs.git'))).toMatchObject({
      apiUrl: 'https://api.github.com',
      owner: 'Org',
      repo: 'Docs',
    });
    expect(githubTarget(projectOf({}, 'https://ghe.example.com/team/site'))).toMatchObject({
      apiUrl: 'https://ghe.example.com/api/v3',
      owner: 'team',
      repo: 'site',
    });
    expect(
      githubTarget(projectOf({ apiUrl: 'http://127.0.0.1:9/', owner: 'o', repo: 'r' }, '/srv/x')),
    ).toMatchObject({ apiUrl: 'http://127.0.0.1:9', owner: 'o', repo: 'r' });
    expect(() => githubTarget(projectOf({}, 'https://github.com/'))).toThrow(/OWNER\/REPO/);
    expect(() => githubTarget(projectOf({ apiUrl: 'ftp://x' }))).toThrow(/apiUrl/);
    expect(() => githubTarget(projectOf({ appId: 1 }))).toThrow(/installationId/);
  });
});

describe('github host against its double', () => {
  const remote = useHostDouble({
    name: 'github-host',
    token: TOKEN,
    start: (token) => startGithubDouble({ token }),
    reset: (double) => double.repository('org', 'repo', { archived: false, push: true }),
  });
  const { failure, posts } = remote;

  const host = (retry: RetrySettings = {}) =>
    createGithubHost({
      secret: remote.lookup,
      askpassDir: remote.askpassDir,
      retry: { baseMs: 5, ...retry, pacing: false },
    });
  const project = () => projectOf({ apiUrl: remote.double.url }, `${remote.gitServer.url}/org/repo.git`);
  const open = async (branch: string, options: { project?: Project } = {}) =>
    host().openOrUpdatePullRequest(pullRequestOf(branch, options.project ?? project(), true));
  remoteHostCases({
    label: 'GitHub',
    remote,
    host,
    project,
    transient: [
      ['server_error', 500],
      ['server_error', 500],
    ],
    outage: /GitHub failed while opening the pull request \(500\)/,
    wrongToken: 'ghp_wrong-token-000000000000',
    refusedToken: /invalid, expired or revoked/,
  });

  it('opens a draft pull request with the token', async () => {
    const link = await open('agentjobs/draft');
    expect(link.url).toBe(`https://github.com/org/repo/pull/${link.number}`);
    expect(remote.double.repository('org', 'repo').pulls.at(-1)).toMatchObject({
      draft: true,
      head: 'agentjobs/draft',
    });
  });

  it('reads a merged pull request as merged (GitHub says closed, with merged_at), with its head branch', async () => {
    const link = await open('agentjobs/landed');
    const pull = remote.double.repository('org', 'repo').pulls.find((found) => found.number === link.number);
    if (pull) Object.assign(pull, { state: 'closed', merged_at: new Date().toISOString() });
    expect(await host().pullRequestState({ project: project(), number: link.number })).toEqual({
      number: link.number,
      state: 'merged',
      branch: 'agentjobs/landed',
    });
  });

  it('waits out a secondary rate limit, a bounded number of times', async () => {
    remote.double.fail('secondary_rate_limit');
    await open('agentjobs/secondary');
    expect(posts().map((r) => r.status)).toEqual([403, 201]);

    remote.double.requests.length = 0;
    remote.double.fail('secondary_rate_limit', 10);
    const error = await failure(open('agentjobs/limited'));
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(/rate limit/);
    expect(posts()).toHaveLength(3);
  });

  it('explains a repository it cannot see (404), no permission (403), and an archive', async () => {
    const missing = await failure(
      open('agentjobs/x', {
        project: projectOf({ apiUrl: remote.double.url }, 'https://github.com/org/gone'),
      }),
    );
    expect(missing.message).toMatch(/no repository org\/gone .*does not exist, or the token cannot see it/);

    remote.double.repository('org', 'repo', { push: false });
    const denied = await failure(open('agentjobs/denied'));
    expect(denied.message).toMatch(/403.*lacks the permission/);

    remote.double.repository('org', 'repo', { push: true, archived: true });
    const archived = await failure(open('agentjobs/archived'));
    expect(archived.message).toMatch(/org\/repo is archived/);
  });

  it('says what a token lacks', async () => {
    remote.double.repository('org', 'repo', { push: false });
    const readOnly = await host().check?.(project());
    expect(readOnly?.find((c) => c.name === 'push')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/Contents: read and write/),
    });
  });
});

describe('github host as a GitHub App installation', () => {
  it('mints installation tokens from the private key, for the API and for git', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const app = {
      appId: '12345',
      installationId: '678',
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
    const double = await startGithubDouble({ token: 'unused-personal-token', app });
    const dir = tempDir('github-app');
    try {
      const repository = double.repository('org', 'repo');
      const host = createGithubHost({
        secret: async () => privateKeyPem,
        askpassDir: path.join(dir, 'askpass'),
        retry: { baseMs: 5, pacing: false },
      });
      const project = projectOf({ apiUrl: double.url, appId: 12345, installationId: '678' });
      const link = await host.openOrUpdatePullRequest({
        project,
        job: { id: 'job' } as Job,
        branch: 'agentjobs/app',
        base: 'main',
        title: 'By the App',
        body: '',
        draft: false,
        headSha: 'a'.repeat(40),
      });
      expect(link.url).toBe('https://github.com/org/repo/pull/1');
      expect(repository.pulls).toHaveLength(1);
      const env = await host.gitEnv(project);
      expect(env.AGENTJOBS_GIT_TOKEN).toMatch(/^ghs_installation/);
      expect(JSON.stringify(env)).not.toContain('PRIVATE KEY');
      // The installation token is cached: one mint for the API call and git.
      expect(double.requests.filter((r) => r.path.includes('access_tokens'))).toHaveLength(1);
    } finally {
      await double.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
