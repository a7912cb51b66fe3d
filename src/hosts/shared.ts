/**
 * What the github, gitlab and gitea hosts share: opening the project's stored token, git's read
 * check for `agentjobs project check`, and reading a host's base URL and repository path.
 */

import type { Project } from '../domain/project.js';
import { normalizeRepository } from '../git/mirror.js';
import { askpassEnv, type GitCredentials, runGit } from '../git/run.js';
import { CodeHostError, type HostCheck, type ProjectSecret } from './types.js';

/**
 * The project's token, or a `CodeHostError` that says how to store one. `host` names the host in
 * the message ("GitLab"), `kind` what the secret is ("token", "App private key").
 */
export async function requireSecret(
  secret: ProjectSecret,
  project: Project,
  host: string,
  kind = 'token',
): Promise<string> {
  const value = await secret(project);
  if (value === null) {
    throw new CodeHostError(
      `The project has no ${host} ${kind}; store one with \`agentjobs project token ${project.id}\`.`,
    );
  }
  return value;
}

/** `git ls-remote` with the project's credentials: what the worker's fetch will need. */
export async function gitReadCheck(
  project: Project,
  askpassDir: string,
  credentials: () => Promise<GitCredentials>,
): Promise<HostCheck> {
  try {
    const env = askpassEnv(askpassDir, await credentials());
    // normalizeRepository refuses URLs with credentials and anything that could read as an option.
    const url = normalizeRepository(project.repository);
    await runGit(['ls-remote', '--heads', url, project.baseBranch], { env, timeoutMs: 30_000 });
    return { name: 'git', ok: true, detail: 'git can fetch the repository with these credentials.' };
  } catch (error) {
    return { name: 'git', ok: false, detail: `git cannot fetch the repository: ${(error as Error).message}` };
  }
}

/** The repository URL, or null when it is not one (a local path). */
export function repositoryUrl(repository: string): URL | null {
  try {
    return new URL(repository);
  } catch {
    return null;
  }
}

/** The path segments of a repository URL, without a trailing `.git`: `['group', 'sub', 'docs']`. */
export function repositorySegments(url: URL | null): string[] {
  return (url?.pathname ?? '')
    .replace(/\.git\/*$/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => decodeURIComponent(segment));
}

/** A base URL given by the operator, without trailing slashes or the API suffix they may have added. */
export function instanceBase(url: string, apiSuffix: RegExp): string {
  return url.replace(/\/+$/, '').replace(apiSuffix, '');
}

/** The first issue of a failed settings parse, as a `CodeHostError` naming the setting. */
export function settingsError(host: string, issue: { path: PropertyKey[]; message: string } | undefined) {
  return new CodeHostError(
    `The project's ${host} setting ${issue?.path.join('.') ?? ''} is invalid: ${issue?.message}.`,
  );
}
