/**
 * The cases the three remote code hosts (GitHub, GitLab, Gitea) share, run by each host's suite on
 * its `useHostDouble` fixture: retries of passing failures, giving up on an outage, Retry-After,
 * an unreachable instance, a refused or missing token, the token given to git, and the checks of
 * a token. What differs between hosts (messages, faults, git's user name) is the suite's to say.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { ensureMirror } from '../../src/git/mirror.js';
import type { CodeHost } from '../../src/hosts/types.js';
import type { RecordedRequest } from './double-server.js';
import { type HostDouble, type HostDoubleFixture, pullRequestOf } from './host-double-fixture.js';
import { closedPortUrl } from './host-projects.js';
import { git } from './worker.js';

/** The retry settings a case gives the host. */
export interface RetrySettings {
  baseMs?: number;
  maxWaitSeconds?: number;
}

/** A double with the faults the shared cases queue. */
type FaultingDouble<Fault> = HostDouble & {
  requests: RecordedRequest[];
  fail(fault: Fault, count?: number): void;
};

/** What a host's suite tells the shared cases. */
export interface RemoteHostCases<Fault extends string, Double extends FaultingDouble<Fault>> {
  /** The host's name as its messages write it: `GitHub`, `GitLab`, `Gitea`. */
  label: string;
  remote: HostDoubleFixture<Double>;
  /** The host under test, with `baseMs: 5` unless the case says otherwise. */
  host(retry?: RetrySettings): CodeHost;
  /** The project `org/repo` on the fixture's double and git server. */
  project(): Project;
  /** The failures that are retried, in the order the double answers them, with their statuses. */
  transient: [Fault, number][];
  /** The message after retries of a lasting 500. */
  outage: RegExp;
  /** The message when a Retry-After is longer than the host waits; unset: not tested. */
  waitTooLong?: RegExp;
  /** The message when the API's port is closed, with a project on `apiUrl`; unset: not tested. */
  unreachable?: { message: RegExp; project(apiUrl: string): Project };
  /** A token of the host's shape that the double refuses (no error shows its first 9 characters), and the message about it. */
  wrongToken: string;
  refusedToken: RegExp;
  /** The user name git sends with the token; unset: not tested. */
  gitUsername?: string;
}

/** Registers the shared cases in the calling `describe`. */
export function remoteHostCases<Fault extends string, Double extends FaultingDouble<Fault>>(
  cases: RemoteHostCases<Fault, Double>,
): void {
  const { remote } = cases;
  const open = (branch: string, options: { retry?: RetrySettings; project?: Project } = {}) =>
    cases
      .host(options.retry)
      .openOrUpdatePullRequest(pullRequestOf(branch, options.project ?? cases.project(), false));

  it('retries passing failures, then succeeds', async () => {
    for (const [fault] of cases.transient) remote.double.fail(fault);
    const link = await open('agentjobs/flaky');
    expect(link.number).toBeGreaterThan(0);
    expect(remote.posts().map((r) => r.status)).toEqual([
      ...cases.transient.map(([, status]) => status),
      201,
    ]);
  });

  it('gives up on a lasting outage with a retryable error', async () => {
    remote.double.fail('server_error' as Fault, 10);
    const error = await remote.failure(open('agentjobs/down'));
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(cases.outage);
    expect(remote.posts()).toHaveLength(4);
  });

  it('waits out a 429 for its Retry-After', async () => {
    remote.double.fail('too_many_requests' as Fault);
    await open('agentjobs/busy', { retry: { baseMs: 300 } });
    const [first, second] = remote.posts();
    expect(first?.status).toBe(429);
    expect(second?.status).toBe(201);
    // Retry-After: 1, at 300 ms per second in this test.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(290);
  });

  const { waitTooLong, unreachable, gitUsername } = cases;
  if (waitTooLong) {
    it('refuses a Retry-After longer than it waits, retryably', async () => {
      remote.double.fail('too_many_requests' as Fault);
      const error = await remote.failure(open('agentjobs/too-long', { retry: { maxWaitSeconds: 0 } }));
      expect(error.isRetryable).toBe(true);
      expect(error.message).toMatch(waitTooLong);
      expect(remote.posts()).toHaveLength(1);
    });
  }

  if (unreachable) {
    it(`says when ${cases.label} cannot be reached, retryably`, async () => {
      const project = unreachable.project(await closedPortUrl());
      const error = await remote.failure(open('agentjobs/offline', { project }));
      expect(error.isRetryable).toBe(true);
      expect(error.message).toMatch(unreachable.message);
    });
  }

  it(`explains a token ${cases.label} refuses (401)`, async () => {
    remote.secret = cases.wrongToken;
    const error = await remote.failure(open('agentjobs/wrong-token'));
    expect(error.isRetryable).toBe(false);
    expect(error.message).toMatch(cases.refusedToken);
    expect(error.message).not.toContain(cases.wrongToken.slice(0, 9));
  });

  it('asks for a token when the project has none', async () => {
    remote.secret = null;
    const missing = new RegExp(`no ${cases.label} token; store one`);
    expect((await remote.failure(open('agentjobs/none'))).message).toMatch(missing);
    await expect(cases.host().gitEnv(cases.project())).rejects.toThrow(`no ${cases.label} token`);
  });

  if (gitUsername) {
    it(`gives git the token with the user name ${gitUsername}`, async () => {
      const env = await cases.host().gitEnv(cases.project());
      expect(env).toMatchObject({ AGENTJOBS_GIT_USERNAME: gitUsername, AGENTJOBS_GIT_TOKEN: remote.secret });
      const mirror = await ensureMirror({
        mirrorsDir: path.join(remote.dir, 'mirrors'),
        projectId: cases.project().id,
        repository: cases.project().repository,
        env,
      });
      expect(git(mirror, 'rev-parse', '--verify', 'main')).toMatch(/^[0-9a-f]{40}$/);
      expect(remote.gitServer.requests.some((request) => request.user === gitUsername)).toBe(true);
    });
  }

  it('checks a token that may do everything, and one it refuses without showing it', async () => {
    const ok = await cases.host().check?.(cases.project());
    expect(ok?.map((c) => [c.name, c.ok])).toEqual([
      ['read', true],
      ['git', true],
      ['push', true],
      ['pull_request', true],
    ]);
    remote.secret = cases.wrongToken;
    const wrong = await cases.host().check?.(cases.project());
    expect(wrong?.map((c) => [c.name, c.ok])).toEqual([
      ['read', false],
      ['git', false],
    ]);
    for (const check of wrong ?? []) expect(check.detail).not.toContain(cases.wrongToken.slice(0, 9));
  });
}
