/**
 * The sandbox a project's check command runs in: bubblewrap (`bwrap`), with
 * - no network (its own network namespace: only a loopback device, no route out);
 * - the system's programs and libraries read-only (`/usr` and the links into it), and of `/etc`
 *   only what programs need to start (users, libraries, certificates, alternatives) — not the
 *   server's data directory, its configuration or anyone's home;
 * - writable only a copy of the checkout and a private `/tmp`, each a tmpfs of a fixed size, so
 *   that what the command writes is capped (the checkout folder itself stays untouched);
 * - an unprivileged user (`nobody`) in its own user, PID, IPC and UTS namespaces, no
 *   capabilities, a new session (no terminal to write into), an empty environment but for PATH,
 *   HOME, LANG and CI;
 * - a time limit: the whole process group is killed, and since the command's processes live in
 *   the sandbox's PID namespace, ending its first process ends every one of them, including
 *   those that forked away or outlived the command;
 * - processes and memory capped in total by a control group per run (cgroup.ts), watched while
 *   it runs: a refused fork or a process killed for memory stops the run at once;
 * - a cap on file size (`prlimit --fsize`), and on the output kept (its tail).
 * The project's setup command is the one exception to "no network" (`network`): its own network
 * namespace is given a route out through user-mode networking (sandbox-network.ts), which reaches
 * the outside but no service on this machine's loopback and no abstract socket of the host's;
 * where that cannot be had, the setup does not run. What it adds at the top of the checkout leaves
 * the sandbox as a tar stream (`capture`), bounded by the checkout's tmpfs; later runs get it back
 * read-only (`environment`), bound in place, so neither a check command nor code the model wrote
 * can change it for the next job, and nothing is copied per run.
 * Where a limit cannot be enforced the sandbox is not available, unless the deployment says
 * otherwise (`AGENTJOBS_SANDBOX_UNLIMITED`), and then it says so as unsafe.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { createRunGroup, GroupError, type GroupLimit, type RunGroup } from './cgroup.js';
import { OutputTail } from './output-tail.js';
import { bwrapArguments, CHECKOUT_SOURCE, SANDBOX_CHECKOUT, SANDBOX_UID } from './sandbox-arguments.js';
import { environmentLayers } from './sandbox-layers.js';
import { attachNetwork, NETWORK_FDS, networkProblem } from './sandbox-network.js';

export { SANDBOX_CHECKOUT } from './sandbox-arguments.js';

/** A limit of the sandbox, as its status and results name it. */
export type SandboxLimit = GroupLimit | 'disk';

/** The totals one run may use, over all the processes it starts. */
export interface SandboxLimits {
  /** Processes at once. */
  processes: number;
  /** Memory of all its processes together, what they wrote to the checkout and `/tmp` included. */
  memoryBytes: number;
  /** Bytes the checkout (its files included) and `/tmp` may each hold. */
  diskBytes: number;
}

/** The sandbox as the deployment sets it up: its limits, and whether to go without them. */
export interface SandboxSettings extends SandboxLimits {
  /** Run commands even where a limit cannot be enforced (`AGENTJOBS_SANDBOX_UNLIMITED`): unsafe. */
  unlimited: boolean;
}

/** Whether commands can be sandboxed on this machine, and if not, why. */
export interface SandboxStatus {
  /** Whether a command may run: every limit enforced, or `unlimited` set. */
  available: boolean;
  /** Why not, or, when `unsafe`, which limits are not enforced and why; null when all is well. */
  reason: string | null;
  /** The limits this machine cannot enforce, each with why. */
  unenforced: { limit: SandboxLimit; reason: string }[];
  /** Commands run although a limit is not enforced, because `unlimited` is set. */
  unsafe: boolean;
}

/** What `runSandboxed` runs, where, and within what limits. */
export interface SandboxOptions {
  /** A shell command line, run with `/bin/sh -c`. */
  command: string;
  /** The folder whose copy is the command's working directory. */
  dir: string;
  timeoutMs: number;
  limits: SandboxLimits;
  /** Run without the control group where it cannot be made, instead of failing. */
  unlimited?: boolean;
  /** Output kept: the last this many bytes of stdout and stderr together. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Network to the outside, never to this machine (the setup command only); every other run has none. */
  network?: boolean;
  /** A folder whose top-level entries are laid read-only into the checkout (the project's environment). */
  environment?: string | null;
  /**
   * When the command exits 0, receives what it added at the top of the checkout (entries the
   * checkout folder did not have) as a tar stream; the run ends when this settles.
   */
  capture?: (archive: Readable) => Promise<void>;
}

/** How a sandboxed command ended. */
export interface SandboxRun {
  /** The exit code, or null when it was killed. */
  exitCode: number | null;
  timedOut: boolean;
  /** The limit it ran into, if any; processes and memory stop it at once. */
  exceeded: SandboxLimit | null;
  /** The tail of its output (stdout and stderr interleaved as they came). */
  output: string;
  /** Bytes it printed in all; more than `maxOutputBytes` means `output` is a tail. */
  outputBytes: number;
  durationMs: number;
}

/** How often a run's control group is read for a limit it hit. */
const WATCH_INTERVAL_MS = 250;

/** Inside: copy the checkout into its sized tmpfs, then run the command line (`$1`). */
const START_COMMAND = `cp -a ${CHECKOUT_SOURCE}/. ${SANDBOX_CHECKOUT}/ && exec /bin/sh -c "$1"`;
/**
 * Inside, for a capture: the same, the command kept away from descriptor 3; when it exits 0, the
 * entries it added at the top of the checkout are written to descriptor 3 as a tar stream.
 */
const CAPTURE_COMMAND = `cp -a ${CHECKOUT_SOURCE}/. ${SANDBOX_CHECKOUT}/ || exit $?
/bin/sh -c "$1" 3>&-
code=$?
[ "$code" -eq 0 ] || exit "$code"
set --
for entry in * .[!.]* ..?*; do
  if [ -e "$entry" ] || [ -L "$entry" ]; then
    [ -e "${CHECKOUT_SOURCE}/$entry" ] || [ -L "${CHECKOUT_SOURCE}/$entry" ] || set -- "$@" "$entry"
  fi
done
if [ "$#" -eq 0 ]; then tar -cf - -T /dev/null >&3; else tar -cf - -- "$@" >&3; fi`;
/** Outside: the first process joins the run's control groups (files up to `--`), then execs the rest. */
const JOIN_GROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

/** What a program prints when the checkout or /tmp is full: the shell's words, and Node's (`ENOSPC: no space…`). */
const DISK_FULL = /no space left on device|file size limit exceeded|\bENOSPC\b|\bEFBIG\b/i;

let probed: Promise<Omit<SandboxStatus, 'available' | 'unsafe'>> | null = null;

/**
 * Whether bubblewrap is installed and can make its namespaces here (a container may forbid them),
 * and whether control groups can cap a run, tried once per process.
 */
export async function sandboxStatus(settings: Pick<SandboxSettings, 'unlimited'>): Promise<SandboxStatus> {
  probed ??= probe();
  const found = await probed;
  if (found.reason !== null) return { ...found, available: false, unsafe: false };
  if (found.unenforced.length === 0) return { ...found, available: true, unsafe: false };
  const names = found.unenforced.map((each) => each.limit);
  const which = `The ${names.join(' and ')} limit${names.length > 1 ? 's' : ''} cannot be enforced: ${[...new Set(found.unenforced.map((each) => each.reason))].join(' ')}`;
  return settings.unlimited
    ? {
        ...found,
        available: true,
        unsafe: true,
        reason: `Unsafe: AGENTJOBS_SANDBOX_UNLIMITED=true runs commands without these limits. ${which}`,
      }
    : {
        ...found,
        available: false,
        unsafe: false,
        reason: `A limit of the sandbox cannot be enforced on this machine. ${which} Run the service as root where cgroups are mounted, or set AGENTJOBS_SANDBOX_UNLIMITED=true to run commands without that limit (unsafe).`,
      };
}

async function probe(): Promise<Omit<SandboxStatus, 'available' | 'unsafe'>> {
  const missing = ['bwrap', 'prlimit'].filter((program) => !onPath(program));
  if (missing.length > 0) {
    return {
      unenforced: [],
      reason: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed: install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap; prlimit is in util-linux).`,
    };
  }
  const limits = { processes: 64, memoryBytes: 256 * 1024 * 1024, diskBytes: 1024 * 1024 };
  const unenforced: SandboxStatus['unenforced'] = [];
  try {
    await (await createRunGroup(limits)).remove();
  } catch (error) {
    if (!(error instanceof GroupError)) throw error;
    for (const limit of error.limits) unenforced.push({ limit, reason: error.message });
  }
  const empty = await mkdtemp(join(tmpdir(), 'agentjobs-probe-'));
  const run = await runSandboxed({
    command: `test "$(id -u)" = ${SANDBOX_UID}`,
    dir: empty,
    timeoutMs: 10_000,
    limits,
    unlimited: true,
    maxOutputBytes: 4096,
  })
    .catch((error: NodeJS.ErrnoException) => error)
    .finally(() => rm(empty, { recursive: true, force: true }));
  if (run instanceof Error) {
    const missing = run.code === 'ENOENT';
    return {
      unenforced,
      reason: missing
        ? 'bubblewrap (bwrap) or prlimit is not installed: install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap).'
        : `The sandbox could not start: ${run.message}`,
    };
  }
  if (run.exitCode === 0) return { unenforced, reason: null };
  return { unenforced, reason: refusal(run) };
}

/** Why bubblewrap did not start, naming the setting that allows it (docs/deploy.md explains each). */
function refusal(run: SandboxRun): string {
  const said = run.output.trim().split('\n').at(-1) || `exit code ${run.exitCode}`;
  if (/Unknown option --size/.test(run.output))
    return 'This bubblewrap cannot size a tmpfs (--size, bubblewrap 0.6 or newer), so the disk limit cannot be enforced: upgrade bubblewrap.';
  // The kernel lets a new /proc be mounted only where no part of the existing one is hidden.
  if (/Can't mount proc/.test(run.output))
    return `bubblewrap cannot mount the sandbox's own /proc (${said}): in a container, /proc is masked; run it with /proc unmasked (podman: --security-opt unmask=/proc/*; Kubernetes: securityContext.procMount: Unmasked).`;
  if (/new namespace|unshare|setns/i.test(run.output))
    return `bubblewrap cannot create its namespaces here (${said}): allow unprivileged user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone), and in a container a seccomp profile that allows them (deploy/seccomp/agentjobs-worker.json; podman: --security-opt seccomp=…; Kubernetes: seccompProfile type Localhost).`;
  return `bubblewrap cannot create its namespaces here (${said}); allow unprivileged user namespaces, or run the service where it can.`;
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((folder) => folder && existsSync(join(folder, program)));
}

/**
 * Runs `command` in the sandbox. Resolves when it ends, however it ends; rejects only when the
 * sandbox cannot be started at all (bwrap or prlimit missing, or a control group that cannot be
 * made without `unlimited`), or its network cannot be had (`network`: slirp4netns missing or failing).
 */
export async function runSandboxed(options: SandboxOptions): Promise<SandboxRun> {
  const noNetwork = options.network ? networkProblem() : null;
  if (noNetwork) throw new Error(noNetwork);
  const group = await createRunGroup(options.limits).catch((error: unknown) => {
    if (error instanceof GroupError && options.unlimited) return null;
    throw error;
  });
  try {
    return await run(options, group);
  } finally {
    await group?.remove();
  }
}

/** The command line that runs `options.command` in the sandbox, in `group` when there is one. */
function sandboxArguments(options: SandboxOptions, group: RunGroup | null): string[] {
  const { limits } = options;
  const rlimits = [`--fsize=${limits.diskBytes}`, '--core=0'];
  // Without a control group, a cap per process is what is left.
  if (!group) rlimits.push(`--data=${limits.memoryBytes}`);
  return [
    ...(group?.procsFiles ?? []),
    '--',
    'prlimit',
    ...rlimits,
    '--',
    'bwrap',
    ...bwrapArguments(options.dir, limits.diskBytes, {
      network: options.network,
      layers: options.environment ? environmentLayers(options.environment, options.dir) : [],
    }),
    '--',
    '/bin/sh',
    '-c',
    options.capture ? CAPTURE_COMMAND : START_COMMAND,
    'sh',
    options.command,
  ];
}

/** Starts the sandbox in its own process group, so that a kill reaches prlimit, bwrap and its monitor at once. */
function spawnSandbox(options: SandboxOptions, args: string[]): ChildProcess {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', options.capture ? 'pipe' : 'ignore'];
  if (options.network) stdio.push(...Array(NETWORK_FDS.resolver - 3).fill('pipe'));
  return spawn('/bin/sh', ['-c', JOIN_GROUPS, 'sh', ...args], {
    detached: true,
    stdio,
    // Only the search path: the service's environment holds its secrets.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
}

function run(options: SandboxOptions, group: RunGroup | null): Promise<SandboxRun> {
  const started = Date.now();
  const args = sandboxArguments(options, group);
  return new Promise((resolve, reject) => {
    const child = spawnSandbox(options, args);
    const tail = new OutputTail(options.maxOutputBytes);
    (child.stdout as Readable).on('data', (chunk: Buffer) => tail.push(chunk));
    (child.stderr as Readable).on('data', (chunk: Buffer) => tail.push(chunk));
    let timedOut = false;
    let exceeded: SandboxLimit | null = null;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const archive = child.stdio[3] as Readable | null;
    // Settles when the capture has taken all the command wrote, or failed (read when it ends).
    const captured = options.capture && archive ? options.capture(archive) : Promise.resolve();
    captured.catch(() => {});
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const watch = () => {
      void group?.exceeded().then((limit) => {
        if (limit && !exceeded) {
          exceeded = limit;
          kill();
        }
      });
    };
    const watcher = group ? setInterval(watch, WATCH_INTERVAL_MS) : null;
    options.signal?.addEventListener('abort', kill, { once: true });
    let networkFailure: string | null = null;
    const network = options.network
      ? attachNetwork(child, (why) => {
          networkFailure ??= why;
          kill();
        })
      : null;
    const stop = () => {
      network?.stop();
      clearTimeout(timer);
      if (watcher) clearInterval(watcher);
      options.signal?.removeEventListener('abort', kill);
    };
    child.on('error', (error) => {
      stop();
      reject(error);
    });
    child.on('close', async (code) => {
      stop();
      const captureError = await captured.then(
        () => null,
        (error: unknown) => error as Error,
      );
      exceeded ??= (await group?.exceeded()) ?? null;
      const output = tail.text();
      if (!exceeded && code !== 0 && DISK_FULL.test(output)) exceeded = 'disk';
      if (networkFailure && !timedOut)
        return reject(new Error(`its network could not be set up: ${networkFailure}`));
      // What a failed command left is not taken: only a capture after exit code 0 counts.
      if (captureError && code === 0 && !timedOut && !exceeded) return reject(captureError);
      resolve({
        exitCode: timedOut || exceeded === 'processes' || exceeded === 'memory' ? null : code,
        timedOut,
        exceeded,
        output,
        outputBytes: tail.total,
        durationMs: Date.now() - started,
      });
    });
  });
}
