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
import {
  branchHead,
  type ChangedCommit,
  changeBetween,
  commitsBetween,
  commitsPresent,
} from '../git/change.js';
import { contextMirrorsDir } from '../git/context-mirror.js';
import { ensureMirror } from '../git/mirror.js';
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
  /**
   * The commits after `from` up to `to`, and the unified diff with its changed files; fetches first
   * when the mirror lacks `to`.
   */
  change(
    projectId: string,
    repository: RepositoryMatch,
    from: string | null,
    to: string,
  ): Promise<{ commits: ChangedCommit[]; diff: string; files: string[] }>;
  /** Whether the repository is a folder on this machine: looking at it costs next to nothing. */
  isLocal(projectId: string, repository: RepositoryMatch): Promise<boolean>;
}

export function watchedRepositories(options: WatchedRepositoryOptions): WatchedRepositories {
  const { store, config } = options;
  const mirrorsDir = join(config.dataDir, 'mirrors');
  const askpassDir = join(config.dataDir, 'askpass');
  const secrets = lazySecretBox(config);

  /**
   * Fetches the mirror now and returns its folder. Only the mirror: which branch a context
   * repository's jobs read is not needed to say where a branch stands or what changed on it.
   */
  async function fetchMirror(projectId: string, repository: RepositoryMatch): Promise<string> {
    if (repository.kind === 'context') {
      const found = (await store.contextRepositories.list(projectId)).find(
        (candidate) => candidate.name === repository.name,
      );
      if (!found) throw new Error(`The project has no context repository "${repository.name}".`);
      const token = found.hasToken
        ? await store.contextRepositories.token(projectId, found.name, secrets())
        : null;
      return ensureMirror({
        mirrorsDir: contextMirrorsDir(mirrorsDir, projectId),
        projectId: found.name,
        repository: found.repository,
        env: contextGitEnv(askpassDir, found.host, token),
        timeoutMs: FETCH_TIMEOUT_MS,
      });
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

  /**
   * The mirror holding `to`, and `from` when the mirror has it too (else null): one look at the
   * mirror as it is, and a fetch only when it lacks `to` (a poll may just have fetched it).
   */
  async function mirrorWith(
    projectId: string,
    repository: RepositoryMatch,
    from: string | null,
    to: string,
  ): Promise<{ gitDir: string; from: string | null }> {
    const wanted = from === null ? [to] : [from, to];
    let gitDir =
      repository.kind === 'context'
        ? join(contextMirrorsDir(mirrorsDir, projectId), `${repository.name}.git`)
        : join(mirrorsDir, `${projectId}.git`);
    let present = await commitsPresent(gitDir, wanted).catch(() => new Set<string>());
    if (!present.has(to)) {
      gitDir = await fetchMirror(projectId, repository);
      present = await commitsPresent(gitDir, wanted);
      if (!present.has(to)) throw new Error(`The repository has no commit ${to.slice(0, 40)}.`);
    }
    return { gitDir, from: from !== null && present.has(from) ? from : null };
  }

  return {
    async head(projectId, repository, branch) {
      return branchHead(await fetchMirror(projectId, repository), branch);
    },
    async commits(projectId, repository, from, to) {
      const mirror = await mirrorWith(projectId, repository, from, to);
      return commitsBetween(mirror.gitDir, mirror.from, to);
    },
    async change(projectId, repository, from, to) {
      const mirror = await mirrorWith(projectId, repository, from, to);
      return changeBetween(mirror.gitDir, mirror.from, to);
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
