/**
 * Control groups for the sandbox: one group per run, so that a command's processes and memory are
 * capped in total, whatever it forks (RLIMIT_NPROC does not bind root, and a per-process memory
 * cap lets a thousand processes take a thousand times as much).
 *
 * cgroup v2 where it is mounted (`/sys/fs/cgroup/cgroup.controllers`), the v1 `pids` and `memory`
 * controllers otherwise. Run groups are made below the service's own group, so that whatever
 * limits the service runs under (a container's, a systemd unit's) bind its sandboxes too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A limit a control group enforces. */
export type GroupLimit = 'processes' | 'memory';

/** The totals a run group caps. */
export interface GroupLimits {
  processes: number;
  memoryBytes: number;
}

/** One run's control group: where its first process goes, what it hit, and its removal. */
export interface RunGroup {
  /** The `cgroup.procs` files the run's first process writes its own pid into before it execs. */
  procsFiles: string[];
  /** The limit the run has hit so far (a fork refused, a process killed for memory), or null. */
  exceeded(): Promise<GroupLimit | null>;
  /** Kills every process left in the group and removes it. */
  remove(): Promise<void>;
}

/** Control groups cannot cap a run here; `limits` names what is lost, the message says why. */
export class GroupError extends Error {
  override name = 'GroupError';
  constructor(
    readonly limits: GroupLimit[],
    message: string,
  ) {
    super(message);
  }
}

const MOUNT = '/sys/fs/cgroup';
/** The folder, below the service's own group, that holds the run groups. */
const PARENT = 'agentjobs';

type Layout =
  | { version: 2; parent: string }
  | { version: 1; pidsParent: string; memoryParent: string; swap: boolean };

let layout: Promise<Layout> | null = null;
let runs = 0;

/** Makes a group for one run with `limits` written; throws a `GroupError` where it cannot. */
export async function createRunGroup(limits: GroupLimits): Promise<RunGroup> {
  layout ??= findLayout();
  // A failed look is tried again next time: an admin may have fixed it meanwhile.
  const found = await layout.catch((error: unknown) => {
    layout = null;
    throw error;
  });
  runs += 1;
  const name = `${process.pid}-${runs}`;
  return found.version === 2 ? createV2(found.parent, name, limits) : createV1(found, name, limits);
}

async function findLayout(): Promise<Layout> {
  const memberships = readMemberships();
  if (existsSync(join(MOUNT, 'cgroup.controllers'))) {
    const parent = await prepareV2(memberships.get('') ?? '/');
    await removeOrphans(parent);
    return { version: 2, parent };
  }
  const mounts = v1Mounts();
  const dirs: Partial<Record<'pids' | 'memory', string>> = {};
  const problems: { limit: GroupLimit; message: string }[] = [];
  for (const controller of ['pids', 'memory'] as const) {
    const limit = limitOf(controller);
    const mount = mounts.get(controller);
    const own = memberships.get(controller);
    if (!mount || own === undefined) {
      problems.push({
        limit,
        message: `${limit}: no cgroup v2 is mounted and the cgroup v1 ${controller} controller is not mounted.`,
      });
      continue;
    }
    const dir = join(mount.point, relative(mount.root, own), PARENT);
    try {
      await mkdir(dir, { recursive: true });
      // A folder of some other file system (one mounted over the cgroup mount) would limit nothing.
      if (!existsSync(join(dir, 'cgroup.procs'))) throw new Error('not in a control group file system');
      dirs[controller] = dir;
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      // In a container the cgroup file system is mounted read-only unless a group is delegated to it
      // (making a folder there says EROFS, or ENOENT where a parent is missing too).
      const hint =
        why === 'EROFS' || why === 'ENOENT'
          ? ' In a container, bind a control group delegated to the service there (docs/deploy.md).'
          : '';
      problems.push({ limit, message: `${limit}: cannot create control groups in ${dir} (${why}).${hint}` });
    }
  }
  if (problems.length > 0)
    throw new GroupError(
      problems.map((problem) => problem.limit),
      problems.map((problem) => problem.message).join(' '),
    );
  const memoryParent = dirs.memory as string;
  await removeOrphans(dirs.pids as string);
  await removeOrphans(memoryParent);
  return {
    version: 1,
    pidsParent: dirs.pids as string,
    memoryParent,
    swap: existsSync(join(memoryParent, 'memory.memsw.limit_in_bytes')),
  };
}

/**
 * The v2 folder whose children get the `pids` and `memory` controllers. Only the root may hold
 * processes and give controllers to children; elsewhere the service's processes move into a leaf
 * of their own group first (as a systemd unit with `Delegate=yes` is expected to do).
 */
async function prepareV2(own: string): Promise<string> {
  const base = join(MOUNT, own);
  const available = readFileSync(join(base, 'cgroup.controllers'), 'utf8').split(/\s+/);
  for (const controller of ['pids', 'memory'] as const)
    if (!available.includes(controller))
      throw new GroupError(
        [limitOf(controller)],
        `${limitOf(controller)}: the cgroup v2 ${controller} controller is not available in ${base}.`,
      );
  const enable = () => writeFile(join(base, 'cgroup.subtree_control'), '+pids +memory');
  try {
    await enable();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw v2Error(base, error);
    try {
      const leaf = join(base, `${PARENT}-service`);
      await mkdir(leaf, { recursive: true });
      const members = (await readFile(join(base, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean);
      for (const pid of members) await writeFile(join(leaf, 'cgroup.procs'), pid).catch(() => {});
      await enable();
    } catch (again) {
      throw v2Error(base, again);
    }
  }
  const parent = join(base, PARENT);
  try {
    await mkdir(parent, { recursive: true });
    await writeFile(join(parent, 'cgroup.subtree_control'), '+pids +memory');
  } catch (error) {
    throw v2Error(parent, error);
  }
  return parent;
}

function v2Error(dir: string, error: unknown): GroupError {
  return new GroupError(
    ['processes', 'memory'],
    `processes and memory: cannot give the cgroup v2 pids and memory controllers to groups in ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); run the service as root, or in a group delegated to it.`,
  );
}

async function createV2(parent: string, name: string, limits: GroupLimits): Promise<RunGroup> {
  const dir = join(parent, name);
  await make(dir, ['processes', 'memory']);
  await limit(dir, 'pids.max', limits.processes, 'processes');
  await limit(dir, 'memory.max', limits.memoryBytes, 'memory');
  if (existsSync(join(dir, 'memory.swap.max'))) await limit(dir, 'memory.swap.max', 0, 'memory');
  // One process killed for memory takes the rest with it, rather than leaving a half-run.
  if (existsSync(join(dir, 'memory.oom.group'))) await limit(dir, 'memory.oom.group', 1, 'memory');
  return {
    procsFiles: [join(dir, 'cgroup.procs')],
    exceeded: () => exceededIn(join(dir, 'pids.events'), join(dir, 'memory.events')),
    remove: () => removeGroups([dir], join(dir, 'cgroup.kill')),
  };
}

async function createV1(
  found: Extract<Layout, { version: 1 }>,
  name: string,
  limits: GroupLimits,
): Promise<RunGroup> {
  const pids = join(found.pidsParent, name);
  const memory = join(found.memoryParent, name);
  await make(pids, ['processes']);
  try {
    await make(memory, ['memory']);
    await limit(pids, 'pids.max', limits.processes, 'processes');
    await limit(memory, 'memory.limit_in_bytes', limits.memoryBytes, 'memory');
    // Memory and swap together: with swap the memory limit alone would only move the excess there.
    if (found.swap) await limit(memory, 'memory.memsw.limit_in_bytes', limits.memoryBytes, 'memory');
  } catch (error) {
    await removeGroups([pids, memory], null);
    throw error;
  }
  return {
    procsFiles: [join(pids, 'cgroup.procs'), join(memory, 'cgroup.procs')],
    exceeded: () => exceededIn(join(pids, 'pids.events'), join(memory, 'memory.oom_control')),
    remove: () => removeGroups([pids, memory], null),
  };
}

async function make(dir: string, what: GroupLimit[]): Promise<void> {
  await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw new GroupError(
      what,
      `${what.join(' and ')}: cannot create the control group ${dir} (${error.code}).`,
    );
  });
}

async function limit(dir: string, file: string, value: number, what: GroupLimit): Promise<void> {
  await writeFile(join(dir, file), String(value)).catch((error: NodeJS.ErrnoException) => {
    throw new GroupError([what], `${what}: cannot write ${join(dir, file)} (${error.code}).`);
  });
}

/** `pids.events` counts refused forks as `max`; v1 `memory.oom_control` and v2 `memory.events` count `oom_kill`. */
async function exceededIn(pidsEvents: string, memoryEvents: string): Promise<GroupLimit | null> {
  if (count(await readFile(memoryEvents, 'utf8').catch(() => ''), 'oom_kill') > 0) return 'memory';
  if (count(await readFile(pidsEvents, 'utf8').catch(() => ''), 'max') > 0) return 'processes';
  return null;
}

function count(events: string, key: string): number {
  return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(events)?.[1] ?? 0);
}

/**
 * Kills what is left and removes the groups. A group can be removed only once its last process
 * has been reaped, which takes the kernel a moment after the kill; give up after a few seconds.
 */
async function removeGroups(dirs: string[], killFile: string | null): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    let left = 0;
    for (const dir of dirs) {
      const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => null);
      if (procs === null) continue;
      const pids = procs.split('\n').filter(Boolean).map(Number);
      left += pids.length;
      if (pids.length > 0 && killFile && existsSync(killFile)) await writeFile(killFile, '1').catch(() => {});
      else for (const pid of pids) killQuietly(pid);
    }
    if (left === 0) {
      const results = await Promise.allSettled(
        dirs.map((dir) =>
          rmdir(dir).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          }),
        ),
      );
      if (results.every((result) => result.status === 'fulfilled')) return;
    }
    await sleep(50);
  }
  throw new Error(`The sandbox's control groups could not be removed: ${dirs.join(', ')}`);
}

/**
 * Removes the empty groups of services that ended without removing theirs (a crash, a kill -9);
 * a group that still holds processes stays for its own service to remove.
 */
async function removeOrphans(parent: string): Promise<void> {
  for (const name of await readdir(parent).catch(() => [])) {
    const owner = /^(\d+)-\d+$/.exec(name)?.[1];
    if (owner && !alive(Number(owner))) await rmdir(join(parent, name)).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function limitOf(controller: 'pids' | 'memory'): GroupLimit {
  return controller === 'pids' ? 'processes' : 'memory';
}

/** This process's group per v1 controller ('' for v2), from `/proc/self/cgroup`. */
function readMemberships(): Map<string, string> {
  const memberships = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of (match[1] as string).split(',')) memberships.set(controller, match[2] as string);
  }
  return memberships;
}

/** Where each v1 controller is mounted, and which of its groups the mount shows as its root. */
function v1Mounts(): Map<string, { point: string; root: string }> {
  const mounts = new Map<string, { point: string; root: string }>();
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const [type, , options] = after.split(' ');
    if (type !== 'cgroup' || !options) continue;
    const fields = before.split(' ');
    const root = unescapeMountPath(fields[3] ?? '/');
    const point = unescapeMountPath(fields[4] ?? '');
    for (const option of options.split(','))
      if ((option === 'pids' || option === 'memory') && !mounts.has(option))
        mounts.set(option, { point, root });
  }
  return mounts;
}

/** mountinfo writes spaces and the like in paths as octal escapes. */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
