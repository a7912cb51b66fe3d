/**
 * What the github, gitlab and gitea hosts share: opening the project's stored token, git's read
 * check for `agentjobs project check`, and reading a host's base URL and repository path.
 */

import type { CodeHostKind, Project } from '../domain/project.js';
import { normalizeRepository } from '../git/mirror.js';
import { askpassEnv, type GitCredentials, runGit } from '../git/run.js';
import {
  CodeHostError,
  type ContextSecret,
  type HostCheck,
  type ProjectSecret,
  type ThreadRepository,
} from './types.js';

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

/**
 * Where a thread's repository lives, as a host's settings reader takes it: the project itself for
 * the content repository; for a context repository its own address, and the project's `apiUrl`
 * only when both are on the same instance (same host kind, same origin), since a context
 * repository has no settings of its own.
 */
export function threadLocation(
  kind: CodeHostKind,
  project: Project,
  repository: ThreadRepository,
): Pick<Project, 'repository' | 'hostSettings'> {
  if (repository.kind === 'content') return project;
  const own = repositoryUrl(repository.repository);
  const projects = repositoryUrl(project.repository);
  const apiUrl = project.hostSettings.apiUrl;
  const sameInstance = project.host === kind && own !== null && own.origin === projects?.origin;
  return {
    repository: repository.repository,
    hostSettings: sameInstance && typeof apiUrl === 'string' ? { apiUrl } : {},
  };
}

/**
 * Where a context repository's threads are reached, and with which token: its target as the host
 * reads it (`targetOf`, from `threadLocation`: the project's `apiUrl` only on the same instance) and
 * its own token. The one place that chooses a context repository's API base for every host.
 */
export async function contextAccess<Target>(
  kind: keyof typeof HOST_NAMES,
  project: Project,
  repository: Extract<ThreadRepository, { kind: 'context' }>,
  secret: ContextSecret | undefined,
  targetOf: (location: Pick<Project, 'repository' | 'hostSettings'>) => Target,
): Promise<{ target: Target; token: string }> {
  const target = targetOf(threadLocation(kind, project, repository));
  return { target, token: await requireContextSecret(secret, project, repository.name, HOST_NAMES[kind]) };
}

const HOST_NAMES = { github: 'GitHub', gitlab: 'GitLab', gitea: 'Gitea' } as const;

/** A context repository's token, or a `CodeHostError` that says how to give it one. */
export async function requireContextSecret(
  secret: ContextSecret | undefined,
  project: Project,
  name: string,
  host: string,
): Promise<string> {
  const value = secret ? await secret(project, name) : null;
  if (value === null) {
    throw new CodeHostError(
      `The context repository ${name} has no ${host} token, so the service cannot reach its threads; add it again with \`agentjobs project context add ${project.id} --name ${name} … --token-env VAR\`.`,
    );
  }
  return value;
}
