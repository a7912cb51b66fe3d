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

/**
 * Signs in to the dashboard of a running server as a browser would (the sign-in form with its
 * CSRF cookie and token) and returns the Cookie header of the session.
 */
export async function dashboardCookie(baseUrl: string, password: string): Promise<string> {
  const cookiesOf = (response: Response) =>
    response.headers.getSetCookie().map((line) => line.split(';')[0] ?? '');
  const form = await fetch(`${baseUrl}/ui/sign-in`);
  const csrfCookies = cookiesOf(form);
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${baseUrl}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookies.join('; ') },
    body: new URLSearchParams({ _csrf: token, password }),
  });
  const session = cookiesOf(signedIn).find((c) => c.startsWith('agentjobs_session='));
  if (signedIn.status !== 303 || !session) throw new Error(`sign-in failed with ${signedIn.status}`);
  return [...csrfCookies, session].join('; ');
}
