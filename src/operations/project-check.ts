/**
 * A project's access check, the same lines whoever asks: `agentjobs project check` prints them and
 * the dashboard's Check access shows them (docs/dashboard.md). The code host's own checks, the
 * sandbox when the project runs a command in it, the setup command's lockfile, and each context
 * repository.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxSettings } from '../checks/sandbox.js';
import { sandboxCheck, usesSandbox } from '../checks/sandbox-check.js';
import type { Project } from '../domain/project.js';
import { lockfilesNeeded } from '../domain/setup-lockfile.js';
import { runGit } from '../git/run.js';
import { checkProject } from '../hosts/index.js';
import type { CodeHosts, HostCheck } from '../hosts/types.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { checkContextRepositories } from './context-repositories.js';

/** What the check reads: the code hosts, the store and its secrets, the data directory, the sandbox. */
export interface ProjectCheckDeps {
  hosts: CodeHosts;
  store: Store;
  secrets: () => SecretBox;
  dataDir: string;
  sandbox: SandboxSettings;
}

/** Every line of the project's access check, in the order the CLI prints them. */
export async function checkProjectAccess(deps: ProjectCheckDeps, project: Project): Promise<HostCheck[]> {
  const checks = await checkProject(deps.hosts, project);
  if (usesSandbox(project)) checks.push(await sandboxCheck(deps.sandbox));
  checks.push(...(await lockfileChecks(project, deps.dataDir)));
  checks.push(
    ...(await checkContextRepositories(
      { store: deps.store, secrets: deps.secrets, askpassDir: join(deps.dataDir, 'askpass') },
      project.id,
    )),
  );
  return checks;
}

/**
 * The word on the setup command's lockfile: a command that installs only from one (`npm ci`)
 * fails every job's setup when the base branch lacks it. Read from the local repository, or the
 * service's mirror of a remote one; not checked before the first job fetched it.
 */
export async function lockfileChecks(project: Project, dataDir: string): Promise<HostCheck[]> {
  const needs = project.setupCommand ? lockfilesNeeded(project.setupCommand) : [];
  if (needs.length === 0) return [];
  const mirror = join(dataDir, 'mirrors', `${project.id}.git`);
  const cwd = project.host === 'local' ? project.repository : existsSync(mirror) ? mirror : null;
  if (!cwd) return [];
  const has = (file: string) =>
    runGit(['cat-file', '-e', `refs/heads/${project.baseBranch}:${file}`], { cwd }).then(
      () => true,
      () => false,
    );
  const checks: HostCheck[] = [];
  for (const need of needs) {
    const found = (await Promise.all(need.files.map(has))).some(Boolean);
    checks.push({
      name: 'setup lockfile',
      ok: found,
      detail: found
        ? `${project.baseBranch} has the lockfile \`${need.command}\` installs from.`
        : `The setup command runs \`${need.command}\`, which installs only from ${need.files.join(' or ')}, and ${project.baseBranch} has none: every job's setup would fail. Commit one (run \`npm install\` once for npm), or change the setup command.`,
    });
  }
  return checks;
}
