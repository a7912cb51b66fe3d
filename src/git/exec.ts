/**
 * One git process, start to end: what `runGit` (run.ts) has a thread of spawner.ts do, so that
 * the main thread never waits for a process to start. Plain data in and out, as a message between
 * threads carries it: the caller makes the `GitError` and redacts what git said.
 */
import { spawn } from 'node:child_process';

/** Why a git command failed: it exited non-zero, ran out of time, was aborted, or could not start. */
export type GitFailure = 'exit' | 'timeout' | 'aborted' | 'spawn';

/** A git command to run, with its whole environment already made (`gitEnvironment`). */
export interface GitExecRequest {
  args: string[];
  cwd?: string | undefined;
  env: Record<string, string>;
  input?: string | Uint8Array | undefined;
  timeoutMs: number;
  maxStdoutBytes?: number | undefined;
  acceptExitCodes?: readonly number[] | undefined;
}

/** How it ended. `stderr` keeps the tail (git's last `fatal:` line is the telling one). */
export type GitExecOutcome =
  | { status: 'ok'; stdout: Uint8Array; stderr: string; truncated: boolean; exitCode: number | null }
  | { status: 'failed'; reason: GitFailure; exitCode: number | null; stderr: string };

/** How much of stderr is kept while git runs. */
const STDERR_KEPT = 8_000;

/**
 * Runs git in its own process group, so a timeout or abort also kills its helpers
 * (`git-remote-https`, `upload-pack`), which would otherwise keep our pipes open.
 */
export function execGit(request: GitExecRequest, signal?: AbortSignal): Promise<GitExecOutcome> {
  const { input, maxStdoutBytes } = request;
  return new Promise((resolve) => {
    const child = spawn('git', request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let truncated = false;
    let settled = false;

    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const finish = (outcome: GitExecOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const ok = (exitCode: number | null) =>
      finish({ status: 'ok', stdout: Buffer.concat(stdout), stderr, truncated, exitCode });
    const fail = (reason: GitFailure, exitCode: number | null) =>
      finish({ status: 'failed', reason, exitCode, stderr });
    const onAbort = () => {
      killGroup();
      fail('aborted', null);
    };

    const timer = setTimeout(() => {
      killGroup();
      fail('timeout', null);
    }, request.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      if (truncated) return;
      stdout.push(chunk);
      stdoutBytes += chunk.length;
      if (maxStdoutBytes !== undefined && stdoutBytes >= maxStdoutBytes) {
        truncated = true;
        killGroup();
        ok(null);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.on('error', () => fail('spawn', null));
    child.on('close', (code) => {
      if (code === 0 || (code !== null && request.acceptExitCodes?.includes(code))) ok(code);
      else fail('exit', code);
    });
    if (child.stdin) {
      // git may exit before reading all of its input (EPIPE); its exit code tells what happened.
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
  });
}
