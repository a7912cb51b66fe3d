/**
 * A PostgreSQL cluster of a test's own: `initdb` into a temp directory, a postmaster on a free port
 * (never 5432, the shared one), stopped and removed by `stop`. For tests that must stop, restart or
 * break the server itself, which they must never do to the cluster other tests share.
 *
 * PostgreSQL refuses to run as root, and CI runs tests as root: there the cluster runs as the
 * `postgres` user (`runuser`), in a directory that user owns.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const execFileAsync = promisify(execFile);

/** The newest installed `initdb` (Debian's `/usr/lib/postgresql/<version>/bin`), or null. */
export function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((version) => fs.existsSync(path.join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

export interface PostgresCluster {
  port: number;
  /** A connection URL for `database` (default `postgres`) as the superuser `postgres`. */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart` with the given shutdown mode; resolves once the server accepts connections again. */
  restart(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** Stops the server at once and removes its files. Idempotent. */
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Initialises and starts a cluster; throws when no PostgreSQL binaries are installed. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin)
    throw new Error('No PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) on this machine.');
  let port = await freePort();
  while (port === 5432) port = await freePort();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]]
      : [path.join(bin, program), args];
  const run = (program: string, args: string[]) =>
    execFileAsync(...command(program, args), { timeout: 60_000 });
  // For `pg_ctl start` and `restart`: the postmaster they leave running inherits the command's
  // output, so nothing may be piped (the pipe would never close); the server log has the details.
  // Asynchronous, so that a test's requests keep flowing while the server stops and starts.
  const control = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(...command('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', ...args]), {
        stdio: 'ignore',
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`pg_ctl ${args.at(-1)} exited with ${code}`)),
      );
    });
  const runSync = (program: string, args: string[]) =>
    execFileSync(...command(program, args), { stdio: 'ignore', timeout: 60_000 });
  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    // TCP only: a Unix socket's path (at most 107 characters) would not fit under a long TMPDIR.
    "-c unix_socket_directories=''",
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      runSync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Not running (it failed to start, or was stopped already): nothing to stop.
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // A test runner that dies without running afterAll must not leave a postmaster behind.
  process.on('exit', stop);
  try {
    await control(['-o', serverOptions, 'start']);
  } catch (error) {
    const output = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    stop();
    throw new Error(`PostgreSQL did not start: ${error}\n${output}`);
  }

  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`create database ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart(mode = 'fast') {
      await control(['-m', mode, 'restart']);
    },
    stop,
  };
}
