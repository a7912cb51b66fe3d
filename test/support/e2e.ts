import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../src/domain/job.js';
import { runCli } from './processes.js';

/** Runs git in `repo` and returns its trimmed output; throws when git fails. */
export const git = (repo: string, ...args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args])
    .toString()
    .trim();

/**
 * Makes `repo` a git repository on `main` with one empty commit: the least a project's repository
 * may be (the CLI refuses one without commits). Returns `repo`.
 */
export function committedRepo(repo: string): string {
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'init');
  return repo;
}

/**
 * A bare repository `<dir>/<name>.git` whose `main` holds `files` in one commit: a base that no
 * working copy has checked out, as the local host merges into. Returns its path.
 */
export function bareRepo(dir: string, name: string, files: Record<string, string>): string {
  const work = path.join(dir, `${name}-work`);
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), content);
  }
  git(work, 'add', '-A');
  git(work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'init');
  const bare = path.join(dir, `${name}.git`);
  execFileSync('git', ['clone', '-q', '--bare', work, bare]);
  return bare;
}

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

/** Where a test's jobs live; read when a call is made, since suites fill it in `beforeAll`. */
export interface JobTarget {
  url: string;
  projectId: string;
  key: string;
}

/**
 * The v2 job API of a running server, as a client sees it: `call` answers the status and the
 * body, `waitUntil` polls a job until `done` holds (or throws with the job as it last was).
 */
export function jobApi(target: () => JobTarget, options: { timeoutMs?: number } = {}) {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const { url, projectId, key } = target();
    const response = await fetch(`${url}/v2/agent/${projectId}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, job: (await response.json()) as Job };
  };
  const waitUntil = async (
    jobId: string,
    done: (job: Job) => boolean,
    timeoutMs = options.timeoutMs ?? 45_000,
  ) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { job } = await call('GET', `/job/${jobId}`);
      if (done(job)) return job;
      if (Date.now() > deadline)
        throw new Error(`job still ${job.status}/${job.phase}: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { call, waitUntil };
}
