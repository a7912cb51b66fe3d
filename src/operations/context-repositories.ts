/**
 * Adding and removing a project's context repositories (docs/architecture.md#the-runs-phases), checked the same way
 * whoever asks: `agentjobs project context` and the dashboard's settings page. A refusal is an
 * `invalid_request` whose detail names the field (`name`, `repository`, `ref`, `host`, `token`);
 * nothing is stored then.
 */
import { isAbsolute } from 'node:path';
import { isInsideDataDir } from '../config/data-dir.js';
import { CONTEXT_REPOSITORY_NAME, type ContextRepository } from '../domain/context-repository.js';
import { AppError } from '../domain/errors.js';
import { CODE_HOSTS, type CodeHostKind } from '../domain/project.js';
import { removeContextMirror } from '../git/context-mirror.js';
import { assertBranchName, MirrorError, normalizeRepository } from '../git/mirror.js';
import { checkLocalRepository, RepositoryCheckError } from '../git/repository-check.js';
import { checkContextRepository, contextGitEnv } from '../hosts/context-access.js';
import { ProjectSettingsError, resolveRepository } from '../hosts/project-settings.js';
import type { HostCheck } from '../hosts/types.js';
import { type SecretBox, SecretError } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** A context repository as a person gives it. */
export interface ContextRepositoryInput {
  name: string;
  /** An absolute path on this machine, a `file://` or an `https://` URL. */
  repository: string;
  /** The branch to read; empty or absent: the repository's default branch. */
  ref?: string | null;
  /** The code host of a remote one; absent: `local` for a path, else read from a well-known URL. */
  host?: string | null;
  /** For a remote one that needs it; never stored in clear. */
  token?: string | null;
}

const refuse = (field: string, message: string) =>
  new AppError('invalid_request', message, { details: [{ path: field, message }] });

const isUrl = (repository: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(repository);

/** The host of a remote repository: the one named, or the one a well-known address says. */
function hostOf(repository: string, named: string | null | undefined): CodeHostKind {
  const remote = isUrl(repository) && !repository.startsWith('file://');
  if (named) {
    if (!(CODE_HOSTS as readonly string[]).includes(named))
      throw refuse('host', `The code host must be one of ${CODE_HOSTS.join(', ')}.`);
    if (remote !== (named !== 'local'))
      throw refuse(
        'host',
        remote
          ? 'A remote repository needs its code host (github, gitlab or gitea), not local.'
          : 'A path on this machine (or file://) is a local repository: leave the host empty or local.',
      );
    return named as CodeHostKind;
  }
  if (!remote) return 'local';
  const known: Record<string, CodeHostKind> = { 'github.com': 'github', 'gitlab.com': 'gitlab' };
  const host = known[new URL(repository).hostname];
  if (!host) throw refuse('host', 'Name the code host of this repository (github, gitlab or gitea).');
  return host;
}

/**
 * Checks `input` against the rules and the repository itself, then stores it (token sealed). A
 * local one must lie outside the service's data directory (`dataDir`), symlinks resolved: in there
 * are other projects' mirrors, the database and the secret key, which no agent may read.
 */
export async function addContextRepository(
  deps: { store: Store; secrets: () => SecretBox; dataDir: string },
  projectId: string,
  input: ContextRepositoryInput,
): Promise<ContextRepository> {
  const name = input.name.trim();
  if (!CONTEXT_REPOSITORY_NAME.test(name) || name.length > 64)
    throw refuse(
      'name',
      `The name "${name}" is not allowed: use lower-case letters, digits and "-" (starting with a letter or digit), at most 64 characters.`,
    );
  const given = input.repository.trim();
  if (!given) throw refuse('repository', 'The repository is required: a path on this machine or a URL.');
  const ref = input.ref?.trim() || null;
  const token = input.token?.trim() || null;
  const host = hostOf(given, input.host?.trim() || null);
  if (ref !== null) {
    try {
      await assertBranchName(ref);
    } catch {
      throw refuse('ref', `"${ref}" is not a valid branch name.`);
    }
  }
  let repository: string;
  if (host === 'local') {
    if (token !== null) throw refuse('token', 'A local repository takes no token.');
    const path = given.startsWith('file://') ? new URL(given).pathname : given;
    if (!isAbsolute(path)) throw refuse('repository', 'A local repository must be an absolute path.');
    if (isInsideDataDir(path, deps.dataDir))
      throw refuse(
        'repository',
        `${path} is inside the service's data directory, which holds the database, the secret key and every project's mirror: name a repository outside it.`,
      );
    try {
      const resolved = await resolveRepository(given, 'local');
      repository = resolved.repository;
      await checkLocalRepository(repository, ref ?? resolved.detectedBase ?? 'main');
    } catch (error) {
      if (error instanceof RepositoryCheckError)
        throw refuse(error.field === 'baseBranch' ? 'ref' : 'repository', error.message);
      if (error instanceof ProjectSettingsError) throw refuse('repository', error.message);
      throw error;
    }
  } else {
    try {
      repository = normalizeRepository(given);
    } catch (error) {
      if (error instanceof MirrorError) throw refuse('repository', error.message);
      throw error;
    }
  }
  return deps.store.contextRepositories.add(
    { projectId, name, repository, ref, host },
    token === null ? undefined : { token, secrets: deps.secrets() },
  );
}

/** Removes a context repository and its mirror; `not_found` when the project has none of that name. */
export async function removeContextRepository(
  deps: { store: Store; mirrorsDir: string },
  projectId: string,
  name: string,
): Promise<void> {
  if (!(await deps.store.contextRepositories.remove(projectId, name)))
    throw new AppError('not_found', `The project has no context repository named "${name}".`);
  await removeContextMirror(deps.mirrorsDir, projectId, name);
}

/**
 * Whether git can fetch each of the project's context repositories with its stored credentials:
 * what `agentjobs project check` and the dashboard's "Check access" add to the project's own checks.
 */
export async function checkContextRepositories(
  deps: { store: Store; secrets: () => SecretBox; askpassDir: string },
  projectId: string,
): Promise<HostCheck[]> {
  const checks: HostCheck[] = [];
  for (const repository of await deps.store.contextRepositories.list(projectId)) {
    let token: string | null = null;
    try {
      token = repository.hasToken
        ? await deps.store.contextRepositories.token(projectId, repository.name, deps.secrets())
        : null;
    } catch (error) {
      if (!(error instanceof SecretError)) throw error;
      checks.push({ name: `context repository ${repository.name}`, ok: false, detail: error.message });
      continue;
    }
    checks.push(
      await checkContextRepository(repository, contextGitEnv(deps.askpassDir, repository.host, token)),
    );
  }
  return checks;
}
