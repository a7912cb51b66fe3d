import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { ensureMirror } from '../../src/git/mirror.js';
import { createGitlabHost, gitlabDraftTitle, gitlabTarget } from '../../src/hosts/gitlab.js';
import { startGitlabDouble } from '../support/gitlab-double.js';
import { pullRequestOf, useHostDouble } from '../support/host-double-fixture.js';
import { closedPortUrl, hostProject } from '../support/host-projects.js';
import { git } from '../support/worker.js';

const TOKEN = `glpat-${randomBytes(12).toString('hex')}`;

describe('gitlab settings', () => {
  const target = (repository: string, settings: Record<string, unknown> = {}) =>
    gitlabTarget(hostProject('gitlab', repository, settings));

  it('derives the instance and the project path from the repository URL', () => {
    expect(target('https://gitlab.com/group/sub/docs.git')).toEqual({
      baseUrl: 'https://gitlab.com',
      projectPath: 'group/sub/docs',
    });
    // A self-managed instance under a relative path, given with its API suffix.
    expect(
      target('https://example.com/gitlab/team/site', { apiUrl: 'https://example.com/gitlab/api/v4/' }),
    ).toEqual({ baseUrl: 'https://example.com/gitlab', projectPath: 'team/site' });
    expect(target('/srv/docs', { apiUrl: 'http://127.0.0.1:9', projectPath: 'a/b' })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      projectPath: 'a/b',
    });
    expect(() => target('https://gitlab.com/lonely')).toThrow(/GROUP\/PROJECT/);
    expect(() => target('https://gitlab.com/a/b', { apiUrl: 'ftp://x' })).toThrow(/apiUrl/);
    expect(() => target('https://gitlab.com/a/b', { projectPath: 'no-group' })).toThrow(/projectPath/);
  });

  it('writes a draft as GitLab does, once', () => {
    expect(gitlabDraftTitle('Fix links', true)).toBe('Draft: Fix links');
    expect(gitlabDraftTitle('Draft: Fix links', true)).toBe('Draft: Fix links');
    expect(gitlabDraftTitle('Fix links', false)).toBe('Fix links');
  });
});

describe('gitlab host against its double', () => {
  const remote = useHostDouble({
    name: 'gitlab-host',
    token: TOKEN,
    // GitLab's user name for a token over HTTPS is `oauth2`: the server accepts no other.
    username: 'oauth2',
    start: (token) => startGitlabDouble({ token }),
    reset: (double) => {
      double.project('org/repo', { archived: false, accessLevel: 40 });
      double.scopes = ['api', 'write_repository'];
    },
    // Nothing of the request (its headers hold the token) rides along.
    causeless: true,
  });
  const { failure, posts } = remote;

  const host = (retry: { baseMs?: number; maxWaitSeconds?: number } = {}) =>
    createGitlabHost({
      secret: remote.lookup,
      askpassDir: remote.askpassDir,
      retry: { baseMs: 5, ...retry },
    });
  const project = (projectPath = 'org/repo'): Project =>
    hostProject('gitlab', `${remote.gitServer.url}/org/repo.git`, { apiUrl: remote.double.url, projectPath });
  const open = (branch: string, options: { draft?: boolean; project?: Project; baseMs?: number } = {}) =>
    host({ baseMs: options.baseMs ?? 5 }).openOrUpdatePullRequest(
      pullRequestOf(branch, options.project ?? project(), options.draft ?? false),
    );
  it('opens a draft merge request as GitLab writes it, and keeps it a draft when updating', async () => {
    const link = await open('agentjobs/draft', { draft: true });
    expect(link.url).toBe(`https://gitlab.example.com/org/repo/-/merge_requests/${link.number}`);
    const mr = remote.double.project('org/repo').mergeRequests.at(-1);
    expect(mr).toMatchObject({ title: 'Draft: Change agentjobs/draft', source_branch: 'agentjobs/draft' });
    expect(await open('agentjobs/draft')).toEqual(link);
    expect(mr?.title).toBe('Draft: Change agentjobs/draft');
    expect(remote.double.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      'POST 201',
      'POST 409',
      'GET 200',
      'PUT 200',
    ]);
  });

  it('reads a merged merge request as merged, with its source branch', async () => {
    const link = await open('agentjobs/landed');
    const mr = remote.double.project('org/repo').mergeRequests.find((found) => found.iid === link.number);
    if (mr) mr.state = 'merged';
    expect(await host().pullRequestState({ project: project(), number: link.number })).toEqual({
      number: link.number,
      state: 'merged',
      branch: 'agentjobs/landed',
    });
  });

  it('retries 500 and 502, then succeeds', async () => {
    remote.double.fail('server_error');
    remote.double.fail('bad_gateway');
    const link = await open('agentjobs/flaky');
    expect(link.number).toBeGreaterThan(0);
    expect(posts().map((r) => r.status)).toEqual([500, 502, 201]);
  });

  it('gives up on a lasting outage with a retryable error', async () => {
    remote.double.fail('server_error', 10);
    const error = await failure(open('agentjobs/down'));
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(/GitLab failed \(500\) while opening the merge request after retries/);
    expect(posts()).toHaveLength(4);
  });

  it('waits out a 429 for its Retry-After, and refuses a wait too long', async () => {
    remote.double.fail('too_many_requests');
    await open('agentjobs/busy', { baseMs: 300 });
    const [first, second] = posts();
    expect(first?.status).toBe(429);
    expect(second?.status).toBe(201);
    // Retry-After: 1, at 300 ms per second in this test.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(290);

    remote.double.requests.length = 0;
    remote.double.fail('too_many_requests');
    const patient = createGitlabHost({
      secret: remote.lookup,
      askpassDir: remote.askpassDir,
      retry: { baseMs: 5, maxWaitSeconds: 0 },
    });
    const error = await failure(
      patient.openOrUpdatePullRequest({
        project: project(),
        job: { id: 'job' } as Job,
        branch: 'agentjobs/too-long',
        base: 'main',
        title: 'x',
        body: '',
        draft: false,
        headSha: 'a'.repeat(40),
      }),
    );
    expect(error).toMatchObject({ isRetryable: true });
    expect(error.message).toMatch(/rate limit.*Retry later/);
    expect(posts()).toHaveLength(1);
  });

  it('says when GitLab cannot be reached, retryably', async () => {
    const unreachable = hostProject('gitlab', 'https://gitlab.example.com/org/repo', {
      apiUrl: await closedPortUrl(),
    });
    const error = await failure(open('agentjobs/offline', { project: unreachable }));
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(
      /GitLab could not be reached while opening the merge request: ECONNREFUSED/,
    );
  });

  it('explains a token GitLab refuses (401)', async () => {
    remote.secret = 'glpat-wrong-token-00000000';
    const error = await failure(open('agentjobs/wrong-token'));
    expect(error.isRetryable).toBe(false);
    expect(error.message).toMatch(/invalid, expired or revoked.*GitLab said: 401 Unauthorized/);
    expect(error.message).not.toContain('glpat-wrong');
  });

  it('explains a project it cannot see (404), too low a role and an archive (403)', async () => {
    const missing = await failure(open('agentjobs/x', { project: project('org/gone') }));
    expect(missing.message).toMatch(/no project org\/gone .*does not exist, or the token cannot see it/);

    remote.double.project('org/repo', { accessLevel: 20 });
    const reporter = await failure(open('agentjobs/reporter'));
    expect(reporter.message).toMatch(/403.*Reporter role there.*Developer or higher/);

    remote.double.project('org/repo', { accessLevel: 40, archived: true });
    const archived = await failure(open('agentjobs/archived'));
    expect(archived.message).toMatch(/org\/repo is archived, so it is read-only/);

    remote.double.project('org/repo', { archived: false });
    remote.double.fail('forbidden');
    const forbidden = await failure(open('agentjobs/forbidden'));
    expect(forbidden.message).toMatch(
      /GitLab denied opening the merge request on org\/repo \(403\): the token needs the api scope/,
    );
  });

  it('reports a 409 that is not a duplicate as a refusal', async () => {
    const strict = await startGitlabDouble({ token: TOKEN, hasBranch: () => false });
    try {
      strict.project('org/repo');
      const error = await failure(
        open('agentjobs/nowhere', {
          project: hostProject('gitlab', 'https://gitlab.example.com/org/repo', { apiUrl: strict.url }),
        }),
      );
      expect(error.message).toMatch(
        /GitLab refused opening the merge request on org\/repo \(409\).*does not exist/,
      );
    } finally {
      await strict.close();
    }
  });

  it('asks for a token when the project has none', async () => {
    remote.secret = null;
    expect((await failure(open('agentjobs/none'))).message).toMatch(/no GitLab token; store one/);
    await expect(host().gitEnv(project())).rejects.toThrow(/no GitLab token/);
  });

  it('gives git the token with the user name oauth2', async () => {
    const env = await host().gitEnv(project());
    expect(env.AGENTJOBS_GIT_USERNAME).toBe('oauth2');
    const mirror = await ensureMirror({
      mirrorsDir: path.join(remote.dir, 'mirrors'),
      projectId: 'p_gitlab',
      repository: project().repository,
      env,
    });
    expect(git(mirror, 'rev-parse', '--verify', 'main')).toMatch(/^[0-9a-f]{40}$/);
    expect(remote.gitServer.requests.some((request) => request.user === 'oauth2')).toBe(true);
  });

  it('checks what the token allows, and says what is missing', async () => {
    const ok = await host().check?.(project());
    expect(ok?.map((c) => [c.name, c.ok])).toEqual([
      ['read', true],
      ['git', true],
      ['push', true],
      ['pull_request', true],
    ]);
    remote.double.scopes = ['read_api', 'read_repository'];
    const readOnly = await host().check?.(project());
    expect(readOnly?.find((c) => c.name === 'push')?.detail).toMatch(
      /lacks the write_repository \(or api\) scope/,
    );
    expect(readOnly?.find((c) => c.name === 'pull_request')?.detail).toMatch(/lacks the api scope/);

    remote.double.scopes = ['api'];
    remote.double.project('org/repo', { accessLevel: 20 });
    const reporter = await host().check?.(project());
    expect(reporter?.find((c) => c.name === 'push')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/Reporter role on org\/repo; give it Developer/),
    });

    remote.secret = 'glpat-wrong-token-00000000';
    const wrong = await host().check?.(project());
    expect(wrong?.map((c) => [c.name, c.ok])).toEqual([
      ['read', false],
      ['git', false],
    ]);
    for (const check of wrong ?? []) expect(check.detail).not.toContain('glpat-wrong');
  });
});
