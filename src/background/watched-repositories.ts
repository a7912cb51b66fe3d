/**
 * The repositories automations watch, read from the service's own mirrors (docs/api.md,
 * code and content triggers): a context repository's mirror, or the project's content mirror,
 * fetched with the credentials a worker would use (askpass; never a token in an argument, a URL or
 * a log line). The poller asks where a branch stands; the dispatcher asks what changed between two
 * heads, for `{{change.diff}}` and `{{change.files}}`.
 */
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { RepositoryMatch } from '../domain/host-event.js';
import type { Project } from '../domain/project.js';
import { branchHead, type ChangedCommit, commitsBetween, diffBetween } from '../git/change.js';
import { fetchContextRepository } from '../git/context-mirror.js';
import { ensureMirror } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { contextGitEnv } from '../hosts/context-access.js';
import { lazySecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** How long one fetch of a watched repository may take. */
const FETCH_TIMEOUT_MS = 120_000;

/** What reading the watched repositories needs. */
export interface WatchedRepositoryOptions {
  store: Store;
  config: Pick<Config, 'dataDir' | 'secretKey'>;
  /** The environment git fetches the project's content repository with (its host's askpass); `{}` when absent. */
  contentGitEnv?: (project: Project) => Promise<Record<string, string>>;
}

/** The watched repositories of every project, through their mirrors. */
export interface WatchedRepositories {
  /** Fetches the repository and says where `branch` stands; null when it has no such branch. */
  head(projectId: string, repository: RepositoryMatch, branch: string): Promise<string | null>;
  /** The commits after `from` up to `to`, newest first; fetches first when the mirror lacks `to`. */
  commits(
    projectId: string,
    repository: RepositoryMatch,
    from: string | null,
    to: string,
  ): Promise<ChangedCommit[]>;
  /** The unified diff and changed files from `from` to `to`; fetches first when the mirror lacks `to`. */
  change(
    projectId: string,
    repository: RepositoryMatch,
    from: string | null,
    to: string,
  ): Promise<{ diff: string; files: string[] }>;
  /** Whether the repository is a folder on this machine: looking at it costs next to nothing. */
  isLocal(projectId: string, repository: RepositoryMatch): Promise<boolean>;
}

export function watchedRepositories(options: WatchedRepositoryOptions): WatchedRepositories {
  const { store, config } = options;
  const mirrorsDir = join(config.dataDir, 'mirrors');
  const askpassDir = join(config.dataDir, 'askpass');
  const secrets = lazySecretBox(config);

  /** Fetches the mirror now and returns its folder. */
  async function fetchMirror(projectId: string, repository: RepositoryMatch): Promise<string> {
    if (repository.kind === 'context') {
      const found = (await store.contextRepositories.list(projectId)).find(
        (candidate) => candidate.name === repository.name,
      );
      if (!found) throw new Error(`The project has no context repository "${repository.name}".`);
      const token = found.hasToken
        ? await store.contextRepositories.token(projectId, found.name, secrets())
        : null;
      const fetched = await fetchContextRepository({
        mirrorsDir,
        projectId,
        name: found.name,
        repository: found.repository,
        ref: found.ref,
        env: contextGitEnv(askpassDir, found.host, token),
        timeoutMs: FETCH_TIMEOUT_MS,
      });
      return fetched.gitDir;
    }
    const project = await store.projects.get(projectId);
    if (!project) throw new Error(`No project ${projectId}.`);
    return ensureMirror({
      mirrorsDir,
      projectId: project.id,
      repository: project.repository,
      env: (await options.contentGitEnv?.(project)) ?? {},
      timeoutMs: FETCH_TIMEOUT_MS,
    });
  }

  /** The mirror holding `commit`: as it is when it does already (a poll just fetched it), else fetched. */
  async function mirrorWith(projectId: string, repository: RepositoryMatch, commit: string): Promise<string> {
    const gitDir =
      repository.kind === 'context'
        ? join(mirrorsDir, 'context', projectId, `${repository.name}.git`)
        : join(mirrorsDir, `${projectId}.git`);
    const present = await runGit(['cat-file', '-e', `${commit}^{commit}`], { cwd: gitDir }).then(
      () => true,
      () => false,
    );
    return present ? gitDir : fetchMirror(projectId, repository);
  }

  return {
    async head(projectId, repository, branch) {
      return branchHead(await fetchMirror(projectId, repository), branch);
    },
    async commits(projectId, repository, from, to) {
      return commitsBetween(await mirrorWith(projectId, repository, to), from, to);
    },
    async change(projectId, repository, from, to) {
      return diffBetween(await mirrorWith(projectId, repository, to), from, to);
    },
    async isLocal(projectId, repository) {
      if (repository.kind === 'content') return (await store.projects.get(projectId))?.host === 'local';
      const found = (await store.contextRepositories.list(projectId)).find(
        (candidate) => candidate.name === repository.name,
      );
      return found?.host === 'local';
    },
  };
}
