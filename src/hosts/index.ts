/**
 * The code hosts this server can publish to: `local`, `github`, `gitlab` and `gitea`. A project on
 * a host this server cannot use fails its jobs with `code_host_error` before the agent starts,
 * naming the host.
 */
import type { Project } from '../domain/project.js';
import { countedFetch, type HostRequestObserver } from './counted-fetch.js';
import { createGiteaHost } from './gitea.js';
import { createGithubHost } from './github.js';
import type { GithubRetryOptions } from './github-client.js';
import { createGitlabHost } from './gitlab.js';
import type { HostRetryOptions } from './http.js';
import { createLocalHost } from './local.js';
import {
  type CodeHost,
  CodeHostError,
  type CodeHosts,
  type ContextSecret,
  type HostCheck,
  type ProjectSecret,
  type PullRequestRecords,
} from './types.js';

export { countedFetch, type HostRequestObserver, type HostRequestOutcome } from './counted-fetch.js';
export { createGiteaHost, giteaTarget } from './gitea.js';
export { createGithubHost, githubTarget } from './github.js';
export { createGitlabHost, gitlabTarget } from './gitlab.js';
export { createLocalHost, localPullRequestUrl } from './local.js';
export {
  localMergeConflicts,
  MergeConflictError,
  type MergeOptions,
  type MergeResult,
  mergeLocalPullRequest,
} from './local-merge.js';
export { localRepositoryPath, noticeOutsideChanges } from './local-sync.js';
export * from './types.js';

/** What the code hosts are given: what they need, never the store or the secret box. */
export interface CodeHostsOptions {
  /** Opens a project's stored token or App private key (see `ProjectSecret`). */
  secret: ProjectSecret;
  /** Opens a context repository's stored token, for its threads (see `ContextSecret`). */
  contextSecret?: ContextSecret;
  /** The local host's pull-request records. */
  pullRequests: PullRequestRecords;
  /** Where git's askpass helpers are written. */
  askpassDir: string;
  /** The server's public URL, for the links to local pull requests (see `LocalHostOptions`). */
  publicUrl: string | (() => string);
  /** How the GitHub client retries; tests shrink the waits. */
  githubRetry?: GithubRetryOptions;
  /** How the GitLab and Gitea clients retry; tests shrink the waits. */
  restRetry?: HostRetryOptions;
  /** Told of every HTTP request the hosts' clients send (the server's metrics). */
  observeRequest?: HostRequestObserver;
}

export function createCodeHosts(options: CodeHostsOptions): CodeHosts {
  const { secret, askpassDir, observeRequest } = options;
  const contextSecret = options.contextSecret ? { contextSecret: options.contextSecret } : {};
  // Each host's client sends through a fetch that reports to the observer under the host's name.
  const sending = (host: string, base?: typeof fetch) =>
    observeRequest ? { fetch: countedFetch(host, observeRequest, base) } : {};
  const local = createLocalHost({ pullRequests: options.pullRequests, publicUrl: options.publicUrl });
  const github = createGithubHost({
    secret,
    ...contextSecret,
    askpassDir,
    retry: { ...options.githubRetry, ...sending('github', options.githubRetry?.fetch) },
  });
  const rest = (host: string) => ({
    secret,
    ...contextSecret,
    askpassDir,
    retry: { ...options.restRetry, ...sending(host, options.restRetry?.fetch) },
  });
  const hosts = new Map<string, CodeHost>([
    ['local', local],
    ['github', github],
    ['gitlab', createGitlabHost(rest('gitlab'))],
    ['gitea', createGiteaHost(rest('gitea'))],
  ]);
  return (kind) => {
    const host = hosts.get(kind);
    if (!host) throw new CodeHostError(`The ${kind} code host is not supported by this server yet.`);
    return host;
  };
}

/**
 * What the project's host finds about its credentials and repository (`agentjobs project check`,
 * the dashboard's "Check access"). A refusal before any check could run (no token, settings that
 * do not parse, a host this server lacks) is itself the finding.
 */
export async function checkProject(hosts: CodeHosts, project: Project): Promise<HostCheck[]> {
  try {
    const host = hosts(project.host);
    return host.check
      ? await host.check(project)
      : [{ name: 'host', ok: true, detail: `The ${project.host} host has nothing to check.` }];
  } catch (error) {
    if (!(error instanceof CodeHostError)) throw error;
    return [{ name: 'credentials', ok: false, detail: error.message }];
  }
}
