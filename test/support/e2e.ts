import { execFileSync } from 'node:child_process';
import { runCli } from './processes.js';

/** Runs git in `repo` and returns its trimmed output; throws when git fails. */
export const git = (repo: string, ...args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args])
    .toString()
    .trim();

/** Makes a project on `repo` and a read+write key for it through the built CLI, as a user would. */
export async function createProjectAndKey(
  env: Record<string, string>,
  repo: string,
  extraArgs: string[] = [],
): Promise<{ projectId: string; key: string }> {
  const project = await runCli(
    ['project', 'create', '--name', 'Docs', '--repo', repo, ...extraArgs, '--json'],
    env,
  );
  if (project.code !== 0) throw new Error(`project create failed: ${project.stderr}${project.stdout}`);
  const projectId = (JSON.parse(project.stdout) as { id: string }).id;
  const key = await runCli(['key', 'create', '--project', projectId, '--json'], env);
  if (key.code !== 0) throw new Error(`key create failed: ${key.stderr}`);
  return { projectId, key: (JSON.parse(key.stdout) as { key: string }).key };
}
