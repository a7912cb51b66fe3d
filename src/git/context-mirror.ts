/**
 * A context repository's mirror (docs/architecture.md#the-runs-phases): a bare mirror like the project's own
 * (`mirror.ts`, whose fetch, lock and credential rules it uses), read at the commit its branch named
 * when a run fetched it. Mirrors live at `<mirrors>/context/<projectId>/<name>.git`: one per project
 * and name, never shared between projects, because a mirror fetched with one project's token would
 * otherwise hand its objects to a project whose own token (or none) could not read them.
 */
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { JobFailure } from '../domain/errors.js';
import { ensureMirror, normalizeRepository, withMirrorLock } from './mirror.js';
import { runGit } from './run.js';

/** The folder of a project's context mirrors, under the data directory's `mirrors`. */
export const contextMirrorsDir = (mirrorsDir: string, projectId: string) =>
  resolve(mirrorsDir, 'context', projectId);

/** A context repository could not be fetched or read; the message names it, never a token. */
export class ContextRepositoryUnavailable extends JobFailure<'context_repository_unavailable'> {
  override name = 'ContextRepositoryUnavailable';
  readonly repository: string;
  constructor(repository: string, message: string) {
    super('context_repository_unavailable', message);
    this.repository = repository;
  }
}

/** Options of `fetchContextRepository`. */
export interface FetchContextOptions {
  /** `<data>/mirrors`. */
  mirrorsDir: string;
  projectId: string;
  name: string;
  /** Local path, `file://` or `https://` URL. */
  repository: string;
  /** The branch to read; null: the repository's default branch. */
  ref: string | null;
  /** Credentials from `askpassEnv`; `{}` for none. */
  env: Record<string, string>;
  /** As `EnsureMirrorOptions.freshSince`: a worker passes the moment its run began. */
  freshSince?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a run reads of a context repository: the branch, its commit then, and the mirror holding it. */
export interface FetchedContext {
  name: string;
  ref: string;
  commit: string;
  gitDir: string;
}

/**
 * Fetches the context repository's mirror (making it on first use) and resolves its branch to a
 * commit. Throws `ContextRepositoryUnavailable` naming the repository when it cannot be fetched or
 * has no such branch; git's own message is kept (it holds no token: credentials travel by askpass).
 */
export async function fetchContextRepository(options: FetchContextOptions): Promise<FetchedContext> {
  const { name, env } = options;
  const dir = contextMirrorsDir(options.mirrorsDir, options.projectId);
  const failed = (what: string) =>
    new ContextRepositoryUnavailable(name, `The context repository "${name}" ${what}`);
  let gitDir: string;
  try {
    gitDir = await ensureMirror({
      mirrorsDir: dir,
      projectId: name,
      repository: options.repository,
      env,
      ...(options.freshSince !== undefined ? { freshSince: options.freshSince } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw failed(`could not be fetched: ${(error as Error).message}`);
  }
  const ref = options.ref ?? (await defaultBranch(options).catch(() => null));
  if (ref === null) throw failed('has no default branch git can name; give its branch with --ref.');
  const found = await runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${ref}^{commit}`], {
    cwd: gitDir,
  }).then(
    ({ stdout }) => stdout.toString('utf8').trim(),
    () => null,
  );
  if (!found) throw failed(`has no branch "${ref}".`);
  return { name, ref, commit: found, gitDir };
}

/** The branch the repository's HEAD names (`ls-remote --symref`: one round trip, no objects). */
async function defaultBranch(options: FetchContextOptions): Promise<string | null> {
  const url = normalizeRepository(options.repository);
  const { stdout } = await runGit(['ls-remote', '--symref', url, 'HEAD'], {
    env: options.env,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(stdout.toString('utf8'));
  return match?.[1] ?? null;
}

/** Removes a context repository's mirror (it was removed from its project), under the mirror's lock. */
export async function removeContextMirror(
  mirrorsDir: string,
  projectId: string,
  name: string,
): Promise<void> {
  const mirror = join(contextMirrorsDir(mirrorsDir, projectId), `${name}.git`);
  // Never fetched (never run since it was added): nothing to remove, no folder to make for a lock.
  if (!(await stat(mirror).catch(() => null))) return;
  await withMirrorLock(mirror, () => rm(mirror, { recursive: true, force: true }));
}
