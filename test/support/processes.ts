import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CLI = path.resolve('dist/cli/main.js');

export type Role = 'serve' | 'api' | 'worker';

export interface ServerProcess {
  /** The HTTP address of `serve` and `api`; a worker's health port (AGENTJOBS_HEALTH_PORT), or ''. */
  url: string;
  child: ChildProcess;
  /** Every line the process printed so far (stdout and stderr). */
  output: string[];
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends `signal` to the process (default SIGTERM) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Kills the process and everything it started (its process group) at once. */
  kill(): void;
}

// Every process started here, so that none outlives the test file that started it, whatever
// happened to the test (a timeout or a failed assertion skips its own cleanup).
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) killGroup(child);
});

// util-linux's setpriv (Debian, most Linux distributions): with `--pdeathsig KILL` the kernel kills
// the child when the test process dies, even by SIGKILL, when no exit handler of ours can run.
const SETPRIV = '/usr/bin/setpriv';
const lifeline = fs.existsSync(SETPRIV);

/**
 * Spawns a process in a process group of its own that dies with the test file that started it at
 * the latest: a timed-out or failed test skips its own cleanup, and a grandchild (git, a server
 * the child started) must not outlive it either. Not with the test: some files start a server in
 * one test and use it in the next. Where setpriv exists, the kernel also kills the process when the
 * test process is killed outright (setpriv execs it, so its pid and group stay the same).
 */
export function spawnInGroup(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = lifeline
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args], { ...options, detached: true })
    : spawn(command, args, { ...options, detached: true });
  started.add(child);
  child.on('exit', () => started.delete(child));
  return child;
}

/** Kills a process started here and everything it started (its process group). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The log line that says a role is up. */
export const READY: Record<Role, string> = {
  serve: 'agentjobs is listening',
  api: 'agentjobs is listening',
  worker: 'agentjobs worker is running',
};

/**
 * Starts the built `agentjobs <role>` (`serve` by default, on a free port) in a process group of its own, and resolves
 * once it is up. The group is killed when the test process exits, if the test did not stop it.
 */
export function startServerProcess(
  env: Record<string, string>,
  role: Role = 'serve',
  options: { cwd?: string } = {},
): Promise<ServerProcess> {
  const child = spawnInGroup(process.execPath, [CLI, role], {
    ...options,
    // No drain by default: a stopping server would otherwise answer 5 s more in every test.
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      AGENTJOBS_DRAIN_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`${role} did not start:\n${output.join('\n')}`));
    }, 60_000);
    const onLine = (line: string) => {
      output.push(line);
      if (!line.includes(READY[role])) return;
      clearTimeout(timer);
      const { address, health } = JSON.parse(line) as { address?: string; health?: string | null };
      resolve({
        url: address ?? health ?? '',
        child,
        output,
        exited,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
        kill: () => killGroup(child),
      });
    };
    for (const stream of [child.stdout, child.stderr]) if (stream) eachLine(stream, onLine);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited with ${code ?? signal}:\n${output.join('\n')}`));
    });
  });
}

/** Calls `onLine` for every whole line `stream` gives. */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
}

/**
 * Runs a TypeScript test entry (`test/support/child-worker.ts`, …) with tsx in a process group of its
 * own. The entry reports to the test in JSON lines on stdout (starting `{"`; the worker's own log
 * lines are passed over), each handed to `onMessage`. `exited` rejects with the child's stderr.
 */
export function startTsxChild<Message>(
  entry: string,
  env: Record<string, string>,
  onMessage: (message: Message) => void,
): { child: ChildProcess; exited: Promise<never> } {
  const child = spawnInGroup(process.execPath, ['--import', 'tsx', path.resolve(entry)], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  if (child.stdout)
    eachLine(child.stdout, (line) => {
      if (line.startsWith('{"')) onMessage(JSON.parse(line) as Message);
    });
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`${entry} exited with ${code}: ${stderr}`))),
  );
  return { child, exited };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion; `input`, when given, is its standard input. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
  options: { cwd?: string } = {},
): Promise<CliResult> {
  return runToEnd(process.execPath, [CLI, ...args], { ...options, env, input });
}

/**
 * Runs `command` in a process group of its own (`spawnInGroup`) with `env` over this process's,
 * to completion, and collects what it wrote; `input`, when given, is its standard input.
 */
export function runToEnd(
  command: string,
  args: string[],
  options: { env: Record<string, string>; input?: string | undefined; cwd?: string | undefined },
): Promise<CliResult> {
  const { env, input, cwd } = options;
  return new Promise((resolve) => {
    const child = spawnInGroup(command, args, {
      ...(cwd === undefined ? {} : { cwd }),
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
