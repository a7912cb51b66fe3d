/**
 * How git reaches a context repository (docs/architecture.md#the-runs-phases): with its own token, answered through
 * askpass under the user name its host expects (as the project's hosts do), and the check that
 * `agentjobs project check` runs on it.
 */
import type { CodeHostKind } from '../domain/project.js';
import { normalizeRepository } from '../git/mirror.js';
import { askpassEnv, runGit } from '../git/run.js';
import type { HostCheck } from './types.js';

/** The user name each host takes with a token (see the hosts' `credentialsOf`). */
const USERNAMES: Record<CodeHostKind, string> = {
  local: 'agentjobs',
  github: 'x-access-token',
  gitlab: 'oauth2',
  gitea: 'agentjobs',
};

/** The environment git fetches a context repository with: `{}` without a token. */
export function contextGitEnv(askpassDir: string, host: CodeHostKind, token: string | null) {
  return askpassEnv(askpassDir, token === null ? null : { username: USERNAMES[host], token });
}

/** `git ls-remote` of the context repository's branch with its credentials: what a run's fetch needs. */
export async function checkContextRepository(
  repository: { name: string; repository: string; ref: string | null },
  env: Record<string, string>,
): Promise<HostCheck> {
  const name = `context repository ${repository.name}`;
  try {
    const url = normalizeRepository(repository.repository);
    const ref = repository.ref ?? 'HEAD';
    const { stdout } = await runGit(['ls-remote', url, ref === 'HEAD' ? 'HEAD' : `refs/heads/${ref}`], {
      env,
      timeoutMs: 30_000,
    });
    if (!stdout.toString('utf8').trim())
      return { name, ok: false, detail: `git can read the repository, but it has no branch "${ref}".` };
    return { name, ok: true, detail: `git can fetch ${ref === 'HEAD' ? 'its default branch' : ref}.` };
  } catch (error) {
    return { name, ok: false, detail: `git cannot fetch the repository: ${(error as Error).message}` };
  }
}
