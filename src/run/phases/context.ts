/**
 * Part of the prepare phase: fetch the project's context repositories (docs/architecture.md#the-runs-phases), each
 * once per run into its own mirror, and resolve each branch to the commit the run reads. The job's
 * `contextRepositories` records them. One that cannot be fetched fails the job with
 * `context_repository_unavailable` naming it (never its token): a run without the code it was
 * asked to document would write from guesses.
 */
import { join } from 'node:path';
import type { ContextRepositoryRead } from '../../domain/context-repository.js';
import type { Project } from '../../domain/project.js';
import { fetchContextRepository } from '../../git/context-mirror.js';
import { contextGitEnv } from '../../hosts/context-access.js';
import { lazySecretBox } from '../../store/secrets.js';
import type { ContextSource } from '../agent-port.js';
import type { RunState } from './state.js';

/** At most this many fetches at once: enough to overlap network waits on a small machine. */
const PARALLEL_FETCHES = 4;

/** Fetches the project's context repositories for this run and records what it will read. */
export async function fetchContext(run: RunState & { project: Project }): Promise<ContextSource[]> {
  const { config, store } = run.deps;
  const { project, job, control } = run;
  const repositories = await store.contextRepositories.list(project.id);
  const secrets = lazySecretBox(config);
  const askpassDir = join(config.dataDir, 'askpass');
  const fetched: ContextSource[] = new Array(repositories.length);
  let next = 0;
  const fetchNext = async (): Promise<void> => {
    while (next < repositories.length) {
      const index = next++;
      const repository = repositories[index] as (typeof repositories)[number];
      const token = repository.hasToken
        ? await store.contextRepositories.token(project.id, repository.name, secrets())
        : null;
      fetched[index] = await fetchContextRepository({
        mirrorsDir: join(config.dataDir, 'mirrors'),
        projectId: project.id,
        name: repository.name,
        repository: repository.repository,
        ref: repository.ref,
        env: contextGitEnv(askpassDir, repository.host, token),
        freshSince: run.began,
        signal: control.main,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_FETCHES, repositories.length) }, fetchNext));
  // A job whose project never had any keeps its field empty without a write.
  if (fetched.length > 0 || job.contextRepositories.length > 0) {
    const read: ContextRepositoryRead[] = fetched.map(({ name, ref, commit }) => ({ name, ref, commit }));
    await store.queue.recordContextRepositories(run.lease, read);
  }
  return fetched;
}
