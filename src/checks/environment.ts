/**
 * A project's environment (docs/security.md, "Setup and the environment"): what its `setupCommand`
 * (e.g. `npm ci`) leaves at the top of a checkout of the project's base branch (`node_modules`,
 * `.venv`, …), made in the sandbox with network, before the agent writes anything. The caller
 * gives only a commit of the base branch (run/phases/setup.ts): no other tree is ever built.
 *
 * It is cached per project under `<environments>/<project id>/<key>`, where the key hashes the
 * command and every setup input of the tree (domain/setup-inputs.ts: lockfiles, manifests, the
 * files the command names; their paths and git object ids, so nothing is read), and reused until
 * one changes; a new key builds a new environment and removes the old ones.
 * What is kept carries no setuid, setgid or sticky bit, no write permission for others, and, when
 * the service runs as root, no root ownership: it belongs to the sandbox's unprivileged user, in a
 * folder only the service's user can enter.
 * A build goes to a folder of its own and is renamed into place whole, so a run never sees half
 * of one, and two runs building the same key at once keep the first. Its size is bounded by the
 * sandbox's checkout tmpfs (`maxBytes`): a setup that writes more fails, and nothing is kept.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmod, lchown, lstat, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { MAX_CHECK_TIMEOUT_SECONDS } from '../domain/checks.js';
import { type Redactor, redactValue } from '../domain/redact.js';
import { setupInputTest } from '../domain/setup-inputs.js';
import { checkoutTree } from '../git/checkout.js';
import { runGit } from '../git/run.js';
import { MAX_COMMAND_OUTPUT_BYTES } from './command.js';
import { describeRun } from './command-outcome.js';
import { runSandboxed, type SandboxSettings, sandboxStatus } from './sandbox.js';
import { SANDBOX_UID } from './sandbox-arguments.js';
import { LAYER_CACHE } from './sandbox-layers.js';

/** Bumped when what the key covers changes: environments made under an older rule are never reused. */
const KEY_VERSION = 2;

/** What making or finding a project's environment needs. */
export interface EnvironmentOptions {
  projectId: string;
  /** The project's `setupCommand`. */
  command: string;
  /** The data directory's folder of environments, one folder per project inside. */
  environmentsDir: string;
  /** A git working folder of the project's repository (the job's worktree) and a commit of its base branch. */
  gitDir: string;
  baseCommit: string;
  /**
   * Whether the command may run (with network) when no environment is cached for the key; when
   * not, the outcome is `held` (push mode: a commit of the service's changed a setup input).
   */
  mayBuild?: boolean;
  timeoutSeconds: number;
  sandbox: SandboxSettings;
  /** The most the checkout, the environment included, may hold while the command runs. */
  maxBytes: number;
  redact: Redactor;
  signal?: AbortSignal;
}

/** The environment, found or made, or why it could not be made. Everything in it is redacted. */
export type EnvironmentOutcome =
  | { status: 'reused'; dir: string; key: string }
  | { status: 'held'; key: string }
  | { status: 'built'; dir: string; key: string; durationMs: number; output: string }
  | { status: 'failed'; key: string; message: string; output: string; durationMs: number };

/** The project's environment for the base commit: the cached one, or one made now. */
export async function prepareEnvironment(options: EnvironmentOptions): Promise<EnvironmentOutcome> {
  const key = await environmentKey(options.gitDir, options.baseCommit, options.command);
  const projectDir = join(options.environmentsDir, options.projectId);
  const dir = join(projectDir, key);
  if (await exists(dir)) return { status: 'reused', dir, key };
  if (options.mayBuild === false) return { status: 'held', key };
  return redactValue(await build(options, projectDir, dir, key), options.redact);
}

/** Removes every environment of a project (when the project is deleted). */
export async function removeProjectEnvironments(environmentsDir: string, projectId: string): Promise<void> {
  await rm(join(environmentsDir, projectId), { recursive: true, force: true });
}

/**
 * The cache key: the command and each setup input of the tree (files, and folders the command
 * names), by path and git object id.
 */
export async function environmentKey(gitDir: string, commit: string, command: string): Promise<string> {
  const { stdout } = await runGit(['ls-tree', '-r', '-t', '-z', commit], {
    cwd: gitDir,
    maxStdoutBytes: 256 * 1024 * 1024,
  });
  const isInput = setupInputTest(command);
  const inputs = stdout
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const [meta = '', path = ''] = entry.split('\t');
      const [mode = '', , id = ''] = meta.split(' ');
      return { path, id: `${mode} ${id}` };
    })
    .filter(({ path }) => isInput(path))
    .map(({ path, id }) => `${id} ${path}`)
    .sort();
  return createHash('sha256')
    .update(JSON.stringify({ version: KEY_VERSION, command, inputs }))
    .digest('hex')
    .slice(0, 32);
}

async function build(
  options: EnvironmentOptions,
  projectDir: string,
  dir: string,
  key: string,
): Promise<EnvironmentOutcome> {
  const started = Date.now();
  const failed = (message: string, output = '') => ({
    status: 'failed' as const,
    key,
    message,
    output,
    durationMs: Date.now() - started,
  });
  const status = await sandboxStatus(options.sandbox);
  if (!status.available)
    return failed(
      `The setup command did not run: the sandbox is not available on this worker. ${status.reason}`,
    );
  await mkdir(projectDir, { recursive: true, mode: 0o700 });
  // Only the service's user enters it: what is kept inside may belong to the sandbox's user.
  await chmod(projectDir, 0o700);
  // Folders starting with a dot are builds under way, never taken for a finished environment.
  const base = await mkdtemp(join(projectDir, '.base-'));
  const staging = join(projectDir, `.building-${randomUUID()}`);
  try {
    await checkoutTree(
      { dir: options.gitDir, head: options.baseCommit, written: new Map(), deleted: new Set() },
      base,
    );
    await mkdir(staging);
    const run = await runSandboxed({
      command: options.command,
      dir: base,
      network: true,
      timeoutMs: options.timeoutSeconds * 1000,
      limits: { ...options.sandbox, diskBytes: options.maxBytes },
      unlimited: options.sandbox.unlimited,
      maxOutputBytes: MAX_COMMAND_OUTPUT_BYTES,
      capture: (archive) => extract(archive, staging),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const described = describeRun(run, {
      name: `The setup command \`${options.command}\``,
      timeoutSeconds: options.timeoutSeconds,
      limits: { ...options.sandbox, diskBytes: options.maxBytes },
      diskSetting: 'AGENTJOBS_SETUP_CACHE_MB',
      offline: false,
    });
    if (!described.passed) return failed(described.message, described.output);
    await keepCaches(staging);
    await disarm(staging);
    try {
      await rename(staging, dir);
    } catch (error) {
      // Another run made the same environment first: theirs is as good.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
    await removeOthers(projectDir, key);
    return { status: 'built', dir, key, durationMs: Date.now() - started, output: described.output };
  } catch (error) {
    options.signal?.throwIfAborted();
    return failed(`The setup command could not run: ${(error as Error).message}`);
  } finally {
    await rm(base, { recursive: true, force: true }).catch(() => {});
    await rm(staging, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Unpacks the setup's tar stream into `target`, with this machine's tar: owned by the service,
 * never through a link (GNU tar defers links that lead out of the folder until the end).
 */
function extract(archive: Readable, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-x', '-f', '-', '-C', target, '--no-same-owner'], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    let said = '';
    tar.stderr.on('data', (chunk: Buffer) => {
      said = (said + chunk.toString('utf8')).slice(-2000);
    });
    archive.pipe(tar.stdin);
    // A tar that stopped reading must not stall the sandbox's end.
    tar.stdin.on('error', () => {});
    tar.on('error', reject);
    tar.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`unpacking what it made failed: ${said.trim() || `tar exit ${code}`}`)),
    );
  });
}

/**
 * Takes from what the setup made every permission it needs not have on this machine: setuid,
 * setgid and sticky bits and others' write go (files keep only whether they run: 0755 or 0644,
 * folders 0755), and when the service runs as root, everything goes to the sandbox's unprivileged
 * user, so nothing in the cache is root's. Links are left as links (laying in makes them anew).
 */
async function disarm(dir: string): Promise<void> {
  const root = process.getuid?.() === 0;
  const entries = await readdir(dir, { recursive: true });
  for (const path of [dir, ...entries.map((entry) => join(dir, entry))]) {
    const found = await lstat(path);
    if (root) await lchown(path, SANDBOX_UID, SANDBOX_UID);
    if (found.isSymbolicLink()) continue;
    const mode = found.isDirectory() || found.mode & 0o111 ? 0o755 : 0o644;
    // After the change of owner, which would clear setuid bits but not setgid ones on its own.
    if ((found.mode & 0o7777) !== mode || root) await chmod(path, mode);
  }
}

/** Makes the writable `.cache` mount point in each folder of the environment (sandbox-layers.ts). */
async function keepCaches(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true }))
    if (entry.isDirectory()) await mkdir(join(dir, entry.name, LAYER_CACHE), { recursive: true });
}

/**
 * Removes the project's environments for other keys. Builds under way (dot folders) stay, unless
 * older than any build may last: those a crashed worker left.
 */
async function removeOthers(projectDir: string, key: string): Promise<void> {
  for (const name of await readdir(projectDir)) {
    if (name === key) continue;
    const path = join(projectDir, name);
    if (name.startsWith('.')) {
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
      if (Date.now() - mtimeMs < ABANDONED_BUILD_MS) continue;
    }
    await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

/** A build folder older than this was left by a worker that died: no setup runs that long. */
const ABANDONED_BUILD_MS = 2 * MAX_CHECK_TIMEOUT_SECONDS * 1000;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
