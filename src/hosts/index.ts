/**
 * The code hosts this server can publish to: `local`, `github`, `gitlab` and `gitea`. A project on
 * a host this server cannot use fails its jobs with `code_host_error` before the agent starts,
 * naming the host.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Project } from '../domain/project.js';
import { createSecretBox, ensureSecretKey, type SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { createGiteaHost } from './gitea.js';
import { createGithubHost } from './github.js';
import type { GithubRetryOptions } from './github-client.js';
import { createGitlabHost } from './gitlab.js';
import type { HostRetryOptions } from './http.js';
import { createLocalHost } from './local.js';
import { type CodeHost, CodeHostError, type CodeHosts, type HostCheck } from './types.js';

export { createGiteaHost, giteaTarget } from './gitea.js';
export { createGithubHost, githubTarget } from './github.js';
export { createGitlabHost, gitlabTarget } from './gitlab.js';
export { createLocalHost, localPullRequestUrl } from './local.js';
export { type MergeOptions, type MergeResult, mergeLocalPullRequest } from './local-merge.js';
export * from './types.js';

export interface CodeHostsOptions {
  config: Config;
  store: Store;
  /** Opens the projects' stored tokens; by default keyed by the server's secret key. */
  secrets?: SecretBox;
  /** How the GitHub client retries; tests shrink the waits. */
  githubRetry?: GithubRetryOptions;
  /** How the GitLab and Gitea clients retry; tests shrink the waits. */
  restRetry?: HostRetryOptions;
}

export function createCodeHosts(options: CodeHostsOptions): CodeHosts {
  const { config, store } = options;
  // Made on first use, so a server with only local projects never needs the key.
  let secrets = options.secrets ?? null;
  const secretOf = (project: { id: string }) => {
    secrets ??= createSecretBox(ensureSecretKey(config));
    return store.projects.hostToken(project.id, secrets);
  };
  const local = createLocalHost({ pullRequests: store.pullRequests, publicUrl: config.publicUrl });
  const github = createGithubHost({
    secret: secretOf,
    askpassDir: join(config.dataDir, 'askpass'),
    ...(options.githubRetry ? { retry: options.githubRetry } : {}),
  });
  const rest = {
    secret: secretOf,
    askpassDir: join(config.dataDir, 'askpass'),
    ...(options.restRetry ? { retry: options.restRetry } : {}),
  };
  const hosts = new Map<string, CodeHost>([
    ['local', local],
    ['github', github],
    ['gitlab', createGitlabHost(rest)],
    ['gitea', createGiteaHost(rest)],
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
