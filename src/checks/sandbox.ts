/**
 * The sandbox a project's check command runs in: bubblewrap (`bwrap`), with
 * - no network (its own network namespace: only a loopback device, no route out);
 * - the system's programs and libraries read-only (`/usr` and the links into it), and of `/etc`
 *   only what programs need to start (users, libraries, certificates, alternatives) — not the
 *   server's data directory, its configuration or anyone's home;
 * - the checkout the only writable place besides a private, empty `/tmp`;
 * - its own PID, IPC, UTS and user namespaces, no capabilities, a new session (no terminal to
 *   write into), an empty environment but for PATH, HOME, LANG and CI;
 * - a time limit: the whole process group is killed, and since the command's processes live in
 *   the sandbox's PID namespace, ending its first process ends every one of them, including
 *   those that forked away or outlived the command;
 * - a memory limit per process (`prlimit --data`, RLIMIT_DATA): the writable memory a process
 *   may map. Control groups would cap the tree as a whole but are not writable where the service
 *   runs in a container; RLIMIT_AS would break runtimes (Node.js, the JVM) that reserve large
 *   address ranges up front;
 * - a cap on file size (`prlimit --fsize`), and on the output kept (its tail).
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether commands can be sandboxed on this machine, and if not, why. */
export interface SandboxStatus {
  available: boolean;
  reason: string | null;
}

/** What `runSandboxed` runs, where, and within what limits. */
export interface SandboxOptions {
  /** A shell command line, run with `/bin/sh -c`. */
  command: string;
  /** The folder mounted writable as the command's working directory. */
  dir: string;
  timeoutMs: number;
  /** Writable memory per process, in bytes. */
  memoryBytes: number;
  /** Output kept: the last this many bytes of stdout and stderr together. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** How a sandboxed command ended. */
export interface SandboxRun {
  /** The exit code, or null when it was killed. */
  exitCode: number | null;
  timedOut: boolean;
  /** The tail of its output (stdout and stderr interleaved as they came). */
  output: string;
  /** Bytes it printed in all; more than `maxOutputBytes` means `output` is a tail. */
  outputBytes: number;
  durationMs: number;
}

/** Where the checkout appears inside the sandbox. */
export const SANDBOX_CHECKOUT = '/checkout';

/** The largest file the command may write. */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** Parts of `/etc` that programs need to start; the rest of it stays out. */
const ETC_ENTRIES = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
  'localtime',
  'mime.types',
  'os-release',
  'debian_version',
];

/** Top-level system folders: read-only binds, or the same links when they are links (merged /usr). */
const SYSTEM_ENTRIES = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** The bubblewrap arguments for `dir`, built once per call from what this machine has. */
export function bwrapArguments(dir: string): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'CI',
    '1',
  ];
  for (const entry of SYSTEM_ENTRIES) {
    const path = `/${entry}`;
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  args.push('--bind', dir, SANDBOX_CHECKOUT, '--chdir', SANDBOX_CHECKOUT);
  return args;
}

let probed: Promise<SandboxStatus> | null = null;

/**
 * Whether bubblewrap is installed and can make its namespaces here (a container may forbid them),
 * tried once per process by running `true` in the sandbox.
 */
export function sandboxStatus(): Promise<SandboxStatus> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<SandboxStatus> {
  const missing = ['bwrap', 'prlimit'].filter((program) => !onPath(program));
  if (missing.length > 0) {
    return {
      available: false,
      reason: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed: install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap; prlimit is in util-linux).`,
    };
  }
  const run = await runSandboxed({
    command: 'true',
    dir: '/tmp',
    timeoutMs: 10_000,
    memoryBytes: 256 * 1024 * 1024,
    maxOutputBytes: 4096,
  }).catch((error: NodeJS.ErrnoException) => error);
  if (run instanceof Error) {
    const missing = run.code === 'ENOENT';
    return {
      available: false,
      reason: missing
        ? 'bubblewrap (bwrap) or prlimit is not installed: install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap).'
        : `The sandbox could not start: ${run.message}`,
    };
  }
  if (run.exitCode === 0) return { available: true, reason: null };
  return {
    available: false,
    reason: `bubblewrap cannot create its namespaces here (${run.output.trim().split('\n').at(-1) || `exit code ${run.exitCode}`}); allow unprivileged user namespaces, or run the service where it can.`,
  };
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((folder) => folder && existsSync(join(folder, program)));
}

/**
 * Runs `command` in the sandbox. Resolves when it ends, however it ends; rejects only when the
 * sandbox cannot be started at all (bwrap or prlimit missing).
 */
export function runSandboxed(options: SandboxOptions): Promise<SandboxRun> {
  const started = Date.now();
  const limits = [`--data=${options.memoryBytes}`, `--fsize=${MAX_FILE_BYTES}`, '--core=0'];
  const args = [
    ...limits,
    '--',
    'bwrap',
    ...bwrapArguments(options.dir),
    '--',
    '/bin/sh',
    '-c',
    options.command,
  ];
  return new Promise((resolve, reject) => {
    // Its own process group, so that a kill reaches prlimit, bwrap and its monitor at once.
    const child = spawn('prlimit', args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Only the search path: the service's environment holds its secrets.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    const tail = new OutputTail(options.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({
        exitCode: timedOut ? null : code,
        timedOut,
        output: tail.text(),
        outputBytes: tail.total,
        durationMs: Date.now() - started,
      });
    });
  });
}

/** The last `limit` bytes of a stream, however much of it comes. */
class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.kept -= (this.chunks.shift() as Buffer).length;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    // Cut at the limit, then drop a partial UTF-8 character at the start.
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
  }
}
