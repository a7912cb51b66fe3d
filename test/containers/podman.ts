/**
 * What the container tests and the image benchmark share: building the images from the locally made
 * bases, running containers with the settings docs/deploy.md gives, and removing what they made.
 * Everything is named with a prefix of the run, so that nothing of another run is touched.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SECCOMP_PROFILE = path.join(ROOT, 'deploy/seccomp/agentjobs-worker.json');
const CGROUP = '/sys/fs/cgroup';
/** The uid the image runs as, which owns the worker's delegated control groups. */
export const IMAGE_UID = 10001;

/** Runs podman; resolves with its stdout, trimmed; rejects with its stderr in the message. */
export async function podman(args: string[], timeoutMs = 120_000): Promise<string> {
  try {
    const { stdout } = await run('podman', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failed = error as Error & { stderr?: string; stdout?: string };
    throw new Error(
      `podman ${args.slice(0, 3).join(' ')} … failed: ${failed.stderr || failed.message}\n${failed.stdout ?? ''}`,
    );
  }
}

/** Runs a script of the repository (bash); resolves with the lines it printed. */
export async function script(file: string, args: string[] = [], timeoutMs = 1_200_000): Promise<string[]> {
  const { stdout } = await run('bash', [path.join(ROOT, file), ...args], {
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim().split('\n');
}

/** Makes the base images (cached by their recipe) and the PostgreSQL image for the tests. */
export async function baseImages(): Promise<{ postgres: string }> {
  await script('scripts/build-base-image.sh');
  const [postgres] = await script('test/containers/postgres-image.sh');
  return { postgres: postgres as string };
}

/**
 * Builds the Dockerfile as `tag` from the locally made bases. A machine behind a TLS-inspecting
 * proxy trusts its certificate through NODE_EXTRA_CA_CERTS: it reaches npm as the `ca` build secret.
 */
export async function buildImage(tag: string, options: { noCache?: boolean } = {}): Promise<void> {
  // Buildah 1.28 (Debian 12's podman) never reuses a layer whose RUN has a --mount, so every build
  // would install and compile again: an image of the same build context is reused whole instead.
  const same = `localhost/agentjobs:context-${contextHash()}`;
  if (
    !options.noCache &&
    (await podman(['image', 'exists', same]).then(
      () => true,
      () => false,
    ))
  ) {
    await podman(['tag', same, tag]);
    return;
  }
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const secret = ca && fs.existsSync(ca) ? ['--secret', `id=ca,src=${ca}`] : [];
  const cache = options.noCache ? ['--no-cache'] : [];
  await podman(['build', '--pull=never', ...cache, ...secret, '-t', tag, '-t', same, ROOT], 1_800_000);
}

/** A hash of what the Dockerfile copies (and of the Dockerfile), as git tracks or would track it. */
export function contextHash(): string {
  const hash = createHash('sha256');
  const files = execFileSync(
    'git',
    [
      'ls-files',
      '--cached',
      '--others',
      '--exclude-standard',
      '--',
      'Dockerfile',
      '.dockerignore',
      'package.json',
      'package-lock.json',
      'tsconfig*.json',
      'src',
      'assets',
    ],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .split('\n')
    .filter((file) => file && !file.endsWith('.test.ts') && fs.existsSync(path.join(ROOT, file)))
    .sort();
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Resource limits to give a container explicitly: podman's defaults (nofile 1048576, nproc
 * unlimited) are more than a host without CAP_SYS_RESOURCE lets runc set, so ask for no more than
 * this process has.
 */
export function ulimits(): string[] {
  const limits = fs.readFileSync('/proc/self/limits', 'utf8');
  const hard = (name: string, fallback: number) => {
    const value = new RegExp(`^${name}\\s+\\S+\\s+(\\S+)`, 'm').exec(limits)?.[1];
    return value && value !== 'unlimited' ? Number(value) : fallback;
  };
  const files = Math.min(hard('Max open files', 65536), 65536);
  const processes = Math.min(hard('Max processes', 32768), 32768);
  return ['--ulimit', `nofile=${files}:${files}`, '--ulimit', `nproc=${processes}:${processes}`];
}

/** What every agentjobs container gets: runc, uid 10001, a read-only root, /tmp, no capabilities. */
export function baseFlags(): string[] {
  return [
    '--runtime',
    'runc',
    ...ulimits(),
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
  ];
}

/**
 * A control group per controller (cgroup v1 pids and memory) delegated to uid 10001: made and
 * chowned here, the service in the container makes its run groups in it. Returns the binds.
 */
export function delegateCgroup(name: string): string[] {
  const binds: string[] = [];
  for (const controller of ['pids', 'memory']) {
    const dir = path.join(CGROUP, controller, name);
    fs.mkdirSync(dir, { recursive: true });
    // As scripts/delegate-cgroup.sh does: the folder and where processes move in, not its limits.
    for (const entry of ['', 'cgroup.procs', 'tasks'])
      fs.chownSync(path.join(dir, entry), IMAGE_UID, IMAGE_UID);
    binds.push('-v', `${dir}:${CGROUP}/${controller}:rw`);
  }
  return binds;
}

/** Removes a delegated group and the run groups left in it (empty once their processes are gone). */
export async function removeCgroup(name: string): Promise<void> {
  for (const controller of ['pids', 'memory']) {
    const dir = path.join(CGROUP, controller, name);
    for (let attempt = 0; attempt < 50 && fs.existsSync(dir); attempt++) {
      try {
        for (const child of fs.readdirSync(dir, { withFileTypes: true }))
          if (child.isDirectory()) removeTree(path.join(dir, child.name));
        fs.rmdirSync(dir);
      } catch {
        await sleep(100);
      }
    }
  }
}

function removeTree(dir: string): void {
  for (const child of fs.readdirSync(dir, { withFileTypes: true }))
    if (child.isDirectory()) removeTree(path.join(dir, child.name));
  fs.rmdirSync(dir);
}

/** The settings the worker's sandbox needs in a container (docs/deploy.md explains each). */
export function sandboxFlags(cgroup: string): string[] {
  return [
    '--security-opt',
    `seccomp=${SECCOMP_PROFILE}`,
    '--security-opt',
    'unmask=/proc/*',
    ...delegateCgroup(cgroup),
  ];
}

/** Resolves when `url` answers 200, or rejects after `timeoutMs`. */
export async function waitForOk(url: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return Date.now() - started;
    } catch {
      // Not up yet.
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The host port podman published for a container's `port`. */
export async function publishedPort(container: string, port: number): Promise<number> {
  const said = await podman(['port', container, `${port}/tcp`]);
  return Number(said.split('\n')[0]?.split(':').at(-1));
}

/** What a run made, removed by `cleanup` whatever happened. */
export class Made {
  containers = new Set<string>();
  volumes = new Set<string>();
  networks = new Set<string>();
  cgroups = new Set<string>();

  async cleanup(): Promise<void> {
    if (this.containers.size > 0)
      await podman(['rm', '--force', '--time', '0', ...this.containers]).catch(() => {});
    if (this.volumes.size > 0) await podman(['volume', 'rm', '--force', ...this.volumes]).catch(() => {});
    for (const network of this.networks) await podman(['network', 'rm', '--force', network]).catch(() => {});
    for (const cgroup of this.cgroups) await removeCgroup(cgroup);
  }
}
