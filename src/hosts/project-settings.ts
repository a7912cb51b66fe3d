/**
 * Checks of a project's repository and host settings, shared by `agentjobs project create` and the
 * dashboard's project form, so that both accept and refuse the same things.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CodeHostKind, Project } from '../domain/project.js';
import { MirrorError, normalizeRepository } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { giteaTarget } from './gitea.js';
import { githubTarget } from './github.js';
import { gitlabTarget } from './gitlab.js';
import { CodeHostError } from './types.js';

/** The repository or the host settings of a project are not usable; the message says why. */
export class ProjectSettingsError extends Error {
  override name = 'ProjectSettingsError';
}

/** git's answer in `repository`, or null when git refuses (not a repository, detached HEAD…). */
async function git(repository: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await runGit(args, { cwd: repository, timeoutMs: 10_000 });
    return stdout.toString('utf8').trim();
  } catch {
    return null;
  }
}

const isRemote = (repo: string) => /^(https?|ssh|git):\/\//.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo);

/**
 * A local repository is stored as an absolute path (relative ones are taken from the current
 * directory) and must be a git repository; its current branch is the default base. A remote one
 * must be a URL git may use with a stored token: no credentials in it, no unsafe scheme.
 */
export async function resolveRepository(
  repo: string,
  host: CodeHostKind,
): Promise<{ repository: string; detectedBase: string | null }> {
  if (isRemote(repo)) {
    if (host === 'local')
      throw new ProjectSettingsError(
        'A local project needs a path on this machine (or file://), not a remote URL.',
      );
    try {
      return { repository: normalizeRepository(repo), detectedBase: null };
    } catch (error) {
      if (error instanceof MirrorError) throw new ProjectSettingsError(error.message);
      throw error;
    }
  }
  if (host !== 'local')
    throw new ProjectSettingsError(`A ${host} project needs the repository's https:// URL.`);
  const local = repo.startsWith('file://') ? new URL(repo).pathname : repo;
  const absolute = path.resolve(local);
  if (!fs.existsSync(absolute)) throw new ProjectSettingsError(`${absolute} does not exist.`);
  if ((await git(absolute, ['rev-parse', '--git-dir'])) === null)
    throw new ProjectSettingsError(`${absolute} is not a git repository.`);
  return { repository: absolute, detectedBase: await git(absolute, ['symbolic-ref', '--short', 'HEAD']) };
}

const TARGETS: Partial<
  Record<CodeHostKind, (project: Pick<Project, 'repository' | 'hostSettings'>) => unknown>
> = {
  github: githubTarget,
  gitlab: gitlabTarget,
  gitea: giteaTarget,
};

/** Refuses host settings the host could not work with (owner and name not found, a bad API URL). */
export function checkHostSettings(
  host: CodeHostKind,
  project: Pick<Project, 'repository' | 'hostSettings'>,
): void {
  const target = TARGETS[host];
  if (!target) return;
  try {
    target(project);
  } catch (error) {
    if (error instanceof CodeHostError) throw new ProjectSettingsError(error.message);
    throw error;
  }
}
