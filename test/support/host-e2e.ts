/**
 * The three remote code hosts as the end-to-end tests see them: each host's test double behind one
 * shape (its pull requests, an archive switch, the create request to hold), the environment
 * variable its token is read from, and the user name its git server wants.
 */
import { randomBytes } from 'node:crypto';
import type { DoubleServer } from './double-server.js';
import { startGiteaDouble } from './gitea-double.js';
import { startGithubDouble } from './github-double.js';
import { startGitlabDouble } from './gitlab-double.js';

/** A pull request as every host's double holds it. */
export interface E2ePull {
  number: number;
  title: string;
  head: string;
  base: string;
  state: string;
}

export interface E2eDouble extends Omit<DoubleServer<'not_found'>, 'fail'> {
  /** The pull requests of `org/repo`. */
  pulls(): E2ePull[];
  archive(archived: boolean): void;
  /** The next request answers 404, as the host does for a repository the token cannot see. */
  failNotFound(): void;
  /** The link of pull request `number`. */
  pullUrl(number: number): string;
  /** Whether a request creates a pull request (to hold it). */
  isCreate(method: string, path: string): boolean;
  /** Whether a request updates pull request `number`. */
  isUpdate(method: string, path: string, number: number): boolean;
  /** Merges or closes pull request `number` as a reviewer would on the host (its state only). */
  finishPull(number: number, state: 'merged' | 'closed'): void;
}

export interface E2eHost {
  kind: 'github' | 'gitlab' | 'gitea';
  /** The variable `project create` reads the token from by default. */
  tokenEnv: string;
  token: string;
  /** The user name the host's git server accepts (undefined: any). */
  gitUsername?: string;
  /** What a refused archive says in the job's error. */
  archivedMessage: RegExp;
  /** What the host's git server answers a push that a branch protection rule refuses. */
  protectedRefusal: string;
  /** Starts the double; `hasBranch` tells whether the served repository has a branch. */
  start(hasBranch: (branch: string) => boolean): Promise<E2eDouble>;
}

export const E2E_HOSTS: Record<E2eHost['kind'], E2eHost> = {
  github: {
    kind: 'github',
    tokenEnv: 'GITHUB_TOKEN',
    token: `ghp_${randomBytes(16).toString('hex')}`,
    archivedMessage: /org\/repo is archived/,
    protectedRefusal: 'error: GH006: Protected branch update failed for refs/heads/BRANCH.',
    async start(hasBranch) {
      const double = await startGithubDouble({ token: this.token, hasBranch: (_o, _r, b) => hasBranch(b) });
      const repository = double.repository('org', 'repo');
      return {
        ...double,
        pulls: () => repository.pulls,
        archive: (archived) => void double.repository('org', 'repo', { archived }),
        failNotFound: () => double.fail('not_found'),
        pullUrl: (number) => `https://github.com/org/repo/pull/${number}`,
        isCreate: (method, path) => method === 'POST' && path === '/repos/org/repo/pulls',
        isUpdate: (method, path, number) => method === 'PATCH' && path === `/repos/org/repo/pulls/${number}`,
        finishPull: (number, state) => {
          const pull = repository.pulls.find((candidate) => candidate.number === number);
          if (!pull) throw new Error(`no pull request ${number}`);
          pull.state = 'closed';
          if (state === 'merged') pull.merged_at = new Date().toISOString();
        },
      };
    },
  },
  gitlab: {
    kind: 'gitlab',
    tokenEnv: 'GITLAB_TOKEN',
    token: `glpat-${randomBytes(16).toString('hex')}`,
    gitUsername: 'oauth2',
    archivedMessage: /GitLab project org\/repo is archived/,
    protectedRefusal: 'GitLab: You are not allowed to push code to protected branches on this project.',
    async start(hasBranch) {
      const double = await startGitlabDouble({ token: this.token, hasBranch: (_p, b) => hasBranch(b) });
      const project = double.project('org/repo', { accessLevel: 30 });
      return {
        ...double,
        pulls: () =>
          project.mergeRequests.map((mr) => ({
            number: mr.iid,
            title: mr.title,
            head: mr.source_branch,
            base: mr.target_branch,
            state: mr.state === 'opened' ? 'open' : mr.state,
          })),
        archive: (archived) => void double.project('org/repo', { archived }),
        failNotFound: () => double.fail('not_found'),
        pullUrl: (number) => `https://gitlab.example.com/org/repo/-/merge_requests/${number}`,
        isCreate: (method, path) =>
          method === 'POST' && path === '/api/v4/projects/org%2Frepo/merge_requests',
        isUpdate: (method, path, number) =>
          method === 'PUT' && path === `/api/v4/projects/org%2Frepo/merge_requests/${number}`,
        finishPull: (number, state) => {
          const request = project.mergeRequests.find((candidate) => candidate.iid === number);
          if (!request) throw new Error(`no merge request ${number}`);
          request.state = state;
        },
      };
    },
  },
  gitea: {
    kind: 'gitea',
    tokenEnv: 'GITEA_TOKEN',
    token: randomBytes(20).toString('hex'),
    archivedMessage: /org\/repo is archived/,
    protectedRefusal: 'Gitea: Not allowed to push to protected branch BRANCH',
    async start(hasBranch) {
      const double = await startGiteaDouble({ token: this.token, hasBranch: (_o, _r, b) => hasBranch(b) });
      const repository = double.repository('org', 'repo');
      return {
        ...double,
        pulls: () => repository.pulls,
        archive: (archived) => void double.repository('org', 'repo', { archived }),
        failNotFound: () => double.fail('not_found'),
        pullUrl: (number) => `https://gitea.example.com/org/repo/pulls/${number}`,
        isCreate: (method, path) => method === 'POST' && path === '/api/v1/repos/org/repo/pulls',
        isUpdate: (method, path, number) =>
          method === 'PATCH' && path === `/api/v1/repos/org/repo/pulls/${number}`,
        finishPull: (number, state) => {
          const pull = repository.pulls.find((candidate) => candidate.number === number);
          if (!pull) throw new Error(`no pull request ${number}`);
          pull.state = 'closed';
          pull.merged = state === 'merged';
        },
      };
    },
  },
};
