// What a test can leave behind, read from /proc, the temporary folder and PostgreSQL: the global
// setup and `leak-check.ts` fail the run on any of it. Linux only (/proc), as the rest of the suite.
import fs from 'node:fs';
import pg from 'pg';

/** Marks every process of one run (inherited through the environment) so an orphan is still found. */
export const RUN_MARKER = 'AGENTJOBS_TEST_RUN';

/** The application name this check's own PostgreSQL connection uses: never counted as a leak. */
const CHECKER_NAME = 'agentjobs-test-leak-check';

/** One process still alive: its pid and command line, for the failure message. */
export interface LeftProcess {
  pid: number;
  command: string;
}

function readProc(pid: number | string, file: string): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null; // exited meanwhile, or another user's process
  }
}

/** The parent of `pid`, or null when it has exited (a zombie included). */
export function parentOf(pid: number | string): number | null {
  const stat = readProc(pid, 'stat');
  // The command name in parentheses may hold spaces and parentheses: the fields after the last `)`.
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? null : Number(fields[1]); // a zombie has exited: not a leak
}

function allPids(): string[] {
  return fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
}

/** `pid`'s command line, spaces between its arguments. */
export function commandOf(pid: number): string {
  return (readProc(pid, 'cmdline') ?? '').split('\0').join(' ').trim() || '(exited)';
}

/** Every living descendant of `root`, children before grandchildren. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const parent = parentOf(pid);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Every living process whose environment carries `RUN_MARKER=run`, wherever it was reparented. */
export function markedProcesses(run: string): number[] {
  const needle = `\0${RUN_MARKER}=${run}\0`;
  return allPids()
    .filter((pid) => parentOf(pid) !== null && `\0${readProc(pid, 'environ') ?? ''}`.includes(needle))
    .map(Number);
}

/** The entries of `dir` (none when it is gone). */
export function entriesOf(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The open PostgreSQL connections whose application name starts with `prefix`, as `database (pid)`. */
export async function openConnections(adminUrl: string, prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: CHECKER_NAME });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string; pid: number }>(
      "select datname, pid from pg_stat_activity where starts_with(application_name, $1) and state <> 'closed'",
      [prefix],
    );
    return rows.map((row) => `connection to ${row.datname} (backend ${row.pid})`);
  } finally {
    await client.end();
  }
}

/** How long a leak may take to go; shorter only where the checks test themselves. */
const GRACE_MS = Number(process.env.AGENTJOBS_TEST_LEAK_GRACE_MS ?? 10_000);

/** What a test file or a run left: living processes, temporary folder entries, connections. */
export interface Leaks {
  processes: number[];
  folders: string[];
  connections: string[];
}

/**
 * Asks `find` until it reports nothing or `graceMs` has passed: a process a test has just
 * signalled, or a pool it has just ended, takes a moment to go. Returns what is still left.
 */
export async function settle(find: () => Promise<Leaks>, graceMs = GRACE_MS): Promise<Leaks> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = await find();
    const count = left.processes.length + left.folders.length + left.connections.length;
    if (count === 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Ends `pids` (ours, left by a test) so that a failed run leaves nothing on a shared machine. */
export function endProcesses(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** One line a leak for the failure message, `what` naming who left it; empty when nothing was. */
export function leakReport(what: string, { processes, folders, connections }: Leaks): string {
  const lines = [
    ...processes.map((pid) => `  process ${pid}: ${commandOf(pid)}`),
    ...folders.map((entry) => `  temporary folder entry: ${entry}`),
    ...connections.map((connection) => `  PostgreSQL ${connection}`),
  ];
  return lines.length === 0 ? '' : `${what} left behind:\n${lines.join('\n')}`;
}

/** Removes `dir` and all in it; never fails (the report has been made by then). */
export function removeFolder(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** What `trackPostgres` sees of a pool or a client: the fields pg keeps for its own state. */
interface PoolState {
  ending: boolean;
  ended: boolean;
  _clients: unknown[];
  options: { database?: string; connectionString?: string };
}
interface ClientState {
  _ending: boolean;
  _connected: boolean;
  database?: string;
}

/**
 * Records every PostgreSQL pool and client this process connects, so that one never ended is
 * named even after its idle connections timed out (a pool closes them by itself after 10 s, when
 * the server no longer lists them). Returns a function that lists the ones still open.
 */
export function trackPostgres(): () => string[] {
  const pools = new Set<PoolState>();
  const clients = new Set<ClientState>();
  const poolConnect = pg.Pool.prototype.connect;
  const clientConnect = pg.Client.prototype.connect;
  // biome-ignore lint/suspicious/noExplicitAny: pg overloads connect (callback or promise); passed through
  pg.Pool.prototype.connect = function (this: PoolState, ...args: any[]) {
    pools.add(this);
    return (poolConnect as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof poolConnect;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  pg.Client.prototype.connect = function (this: ClientState, ...args: any[]) {
    clients.add(this);
    return (clientConnect as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof clientConnect;
  const databaseOf = (pool: PoolState) =>
    pool.options.database ?? pool.options.connectionString?.replace(/^.*\//, '') ?? '?';
  return () => {
    const open = [...pools].filter((pool) => !pool.ending && !pool.ended);
    const pooled = new Set(open.flatMap((pool) => pool._clients));
    return [
      ...open.map((pool) => `pool on ${databaseOf(pool)} never ended (${pool._clients.length} connections)`),
      ...[...clients]
        .filter((client) => !client._ending && client._connected && !pooled.has(client))
        .map((client) => `client on ${client.database ?? '?'} never ended`),
    ];
  };
}
