import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { createGitlabHost, gitlabDraftTitle, gitlabTarget } from '../../src/hosts/gitlab.js';
import { startGitlabDouble } from '../support/gitlab-double.js';
import { pullRequestOf, useHostDouble } from '../support/host-double-fixture.js';
import { hostProject } from '../support/host-projects.js';
import { remoteHostCases } from '../support/remote-host-cases.js';

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
  const { failure } = remote;

  const host = (retry: { baseMs?: number; maxWaitSeconds?: number } = {}) =>
    createGitlabHost({
      secret: remote.lookup,
      askpassDir: remote.askpassDir,
      retry: { baseMs: 5, ...retry },
    });
  const project = (projectPath = 'org/repo'): Project =>
    hostProject('gitlab', `${remote.gitServer.url}/org/repo.git`, { apiUrl: remote.double.url, projectPath });
  const open = (branch: string, options: { draft?: boolean; project?: Project } = {}) =>
    host().openOrUpdatePullRequest(
      pullRequestOf(branch, options.project ?? project(), options.draft ?? false),
    );
  remoteHostCases({
    label: 'GitLab',
    remote,
    host,
    project: () => project(),
    transient: [
      ['server_error', 500],
      ['bad_gateway', 502],
    ],
    outage: /GitLab failed \(500\) while opening the merge request after retries/,
    waitTooLong: /rate limit.*Retry later/,
    unreachable: {
      message: /GitLab could not be reached while opening the merge request: ECONNREFUSED/,
      project: (apiUrl) => hostProject('gitlab', 'https://gitlab.example.com/org/repo', { apiUrl }),
    },
    wrongToken: 'glpat-wrong-token-00000000',
    refusedToken: /invalid, expired or revoked.*GitLab said: 401 Unauthorized/,
    gitUsername: 'oauth2',
  });

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

  it('comments on a merge request’s thread and an issue’s as notes, and explains a refusal', async () => {
    const content = { kind: 'content' } as const;
    const notes = remote.double.project('org/repo').notes;
    notes.length = 0;
    await host().commentOnThread(
      project(),
      { repository: content, type: 'pull_request', number: 3 },
      'On it: https://x/jobs/1',
    );
    await host().commentOnThread(
      project(),
      { repository: content, type: 'issue', number: 8 },
      'On it: https://x/jobs/2',
    );
    expect(notes).toEqual([
      { on: 'merge_requests', iid: 3, body: 'On it: https://x/jobs/1' },
      { on: 'issues', iid: 8, body: 'On it: https://x/jobs/2' },
    ]);
    remote.double.fail('forbidden');
    const refused = await failure(
      host().commentOnThread(project(), { repository: content, type: 'issue', number: 8 }, 'Again'),
    );
    expect(refused.message).toMatch(/GitLab denied commenting on the thread on org\/repo \(403\)/);
    expect(notes).toHaveLength(2);
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

  it('says what a token lacks', async () => {
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
  });
});
