/**
 * What the suites of the remote code hosts (GitHub, GitLab, Gitea) share: a repository served
 * over authenticated git HTTP as `org/repo`, the host's API double, the token the host is given
 * (a test may swap it), and the check that no error of any case carries the token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { CodeHostError } from '../../src/hosts/types.js';
import { type GitHttpServer, startGitHttpServer } from './git-http.js';
import { git, makeRepo, tempDir } from './worker.js';

/** What of a double the fixture uses: its URL, its log of requests, its faults, its end. */
export interface HostDouble {
  url: string;
  requests: { method: string; status: number }[];
  clearFaults(): void;
  close(): Promise<void>;
}

/** The fixture a suite holds; the fields are there from its `beforeAll` on. */
export interface HostDoubleFixture<Double extends HostDouble> {
  readonly dir: string;
  /** Where the host keeps its askpass helper. */
  readonly askpassDir: string;
  readonly gitServer: GitHttpServer;
  readonly double: Double;
  /** What the host's secret lookup answers: the token again before every test. */
  secret: string | null;
  /** The host's secret lookup, reading `secret` when it is called. */
  lookup(): Promise<string | null>;
  /** The rejection of `promise`, which must be a CodeHostError (and without a cause, if so set). */
  failure(promise: Promise<unknown>): Promise<CodeHostError>;
  /** The double's POST requests so far in this test. */
  posts(): Double['requests'];
}

/** Settings of `useHostDouble`. */
export interface HostDoubleOptions<Double extends HostDouble> {
  /** Names the temporary folder. */
  name: string;
  token: string;
  /** The user name git must send with the token (GitLab's is `oauth2`). */
  username?: string;
  start(token: string): Promise<Double>;
  /** Puts `org/repo` back as each test expects it, before every test. */
  reset(double: Double): void;
  /** Require every CodeHostError to carry no `cause` (the request's headers hold the token). */
  causeless?: boolean;
}

/** Registers the suite's hooks and returns its fixture (see the file's comment). */
export function useHostDouble<Double extends HostDouble>(
  options: HostDoubleOptions<Double>,
): HostDoubleFixture<Double> {
  let dir = '';
  let gitServer: GitHttpServer | undefined;
  let double: Double | undefined;
  const errors: unknown[] = [];
  const ready = <Value>(value: Value | undefined): Value => {
    if (value === undefined) throw new Error('the host double is used before its beforeAll');
    return value;
  };

  beforeAll(async () => {
    dir = tempDir(options.name);
    const { repo } = makeRepo(dir);
    const served = path.join(dir, 'served');
    fs.mkdirSync(path.join(served, 'org'), { recursive: true });
    git(dir, 'clone', '-q', '--bare', repo, path.join(served, 'org', 'repo.git'));
    gitServer = await startGitHttpServer({ root: served, token: options.token, username: options.username });
    double = await options.start(options.token);
  });
  beforeEach(() => {
    fixture.secret = options.token;
    const current = ready(double);
    options.reset(current);
    current.clearFaults();
    current.requests.length = 0;
  });
  afterAll(async () => {
    for (const error of errors) expect(String((error as Error)?.message)).not.toContain(options.token);
    await double?.close();
    await gitServer?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const fixture: HostDoubleFixture<Double> = {
    get dir() {
      return ready(dir || undefined);
    },
    get askpassDir() {
      return path.join(ready(dir || undefined), 'askpass');
    },
    get gitServer() {
      return ready(gitServer);
    },
    get double() {
      return ready(double);
    },
    secret: options.token,
    lookup: async () => fixture.secret,
    failure: async (promise) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      errors.push(error);
      expect(error).toBeInstanceOf(CodeHostError);
      if (options.causeless) expect((error as Error).cause).toBeUndefined();
      return error as CodeHostError;
    },
    posts: () => ready(double).requests.filter((request) => request.method === 'POST'),
  };
  return fixture;
}

/** The request to open (or update) the pull request of `branch` into `main`, as the suites send it. */
export function pullRequestOf(branch: string, project: Project, draft: boolean) {
  return {
    project,
    job: { id: 'job' } as Job,
    branch,
    base: 'main',
    title: `Change ${branch}`,
    body: 'Body',
    draft,
    headSha: 'a'.repeat(40),
  };
}
