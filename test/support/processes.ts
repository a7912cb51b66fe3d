import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const CLI = path.resolve('dist/cli/main.js');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every line the server printed so far (stdout and stderr). */
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built `agentjobs <role>` on a free port and waits until it listens. */
export function startServerProcess(env: Record<string, string>, role = 'serve'): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, role], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join('\n')}`)), 20_000);
    const onLine = (line: string) => {
      output.push(line);
      if (!line.includes('agentjobs is listening')) return;
      clearTimeout(timer);
      const { address } = JSON.parse(line) as { address: string };
      resolve({
        url: address,
        child,
        output,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      });
    }
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output.join('\n')}`));
    });
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion; `input`, when given, is its standard input. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
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
