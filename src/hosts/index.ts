/**
 * The code hosts this server can publish to. Only `local` exists so far; a project on another host
 * fails its jobs with `code_host_error` before the agent starts, naming the host.
 */
import type { Config } from '../config.js';
import type { Store } from '../store/store.js';
import { createLocalHost } from './local.js';
import { type CodeHost, CodeHostError, type CodeHosts } from './types.js';

export { createLocalHost, localPullRequestUrl } from './local.js';
export { type MergeOptions, type MergeResult, mergeLocalPullRequest } from './local-merge.js';
export * from './types.js';

export function createCodeHosts(options: { config: Config; store: Store }): CodeHosts {
  const local = createLocalHost({
    pullRequests: options.store.pullRequests,
    publicUrl: options.config.publicUrl,
  });
  const hosts = new Map<string, CodeHost>([['local', local]]);
  return (kind) => {
    const host = hosts.get(kind);
    if (!host) throw new CodeHostError(`The ${kind} code host is not supported by this server yet.`);
    return host;
  };
}
