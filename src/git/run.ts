/**
 * Running git. Every git process of the service starts here (`spawnGit`; `runGit` for a command
 * whose output is read whole), so they all share the same hardened environment, built from an allow-list:
 * no secret of the service, no repository leaked in from our own environment, no terminal prompts,
 * no system config, no hooks, C locale (stable messages to match on), literal pathspecs. git is
 * spawned directly, never through a shell, so arguments are never re-parsed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobFailure } from '../domain/errors.js';
import { createRedactor } from '../domain/redact.js';

/** Default limit for one git command; a fetch of a big repository over a slow link can take a while. */
export const DEFAULT_GIT_TIMEOUT_MS = 60_000;

/** Keep errors short: they end up in job records and logs. */
const STDERR_LIMIT = 2_000;

/**
 * The only variables git inherits from the service's environment: what it needs to find programs,
 * the user's git configuration, temporary space and the network (proxies, certificates, ssh). The
 * service's own environment holds provider keys, the secret key, the admin password and the
 * database URL, and git runs hooks and helpers that pass their environment on; so anything not
 * named here stays out, and so do variables that point git at another repository (`GIT_DIR`, …).
 */
export const INHERITED_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'XDG_CONFIG_HOME',
  'GIT_CONFIG_GLOBAL',
  'TMPDIR',
  'TZ',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'SSH_AUTH_SOCK',
];

/**
 * Set for every git process. No terminal prompts; no system config; C locale (stable messages to
 * match on); pathspecs are literal, so a file named `*` or `:(glob)x` is a name wherever a path
 * reaches git as a pathspec.
 */
const HARDENING: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
  GIT_LITERAL_PATHSPECS: '1',
};

/**
 * Config of every git process, passed at the command line's level (`GIT_CONFIG_COUNT`, git 2.31+),
 * which beats the config of whatever repository git runs in: the operator's local content
 * repository, or a folder copied from somewhere. Hooks are looked for in `/dev/null`, never a
 * folder, so there are none; the file-system monitor, a program a repository's config may name and
 * git runs whenever it reads the index, is off; and the `ext::` transport, which runs a command, is
 * refused even where a user's global config allows it.
 * Hooks of a repository the service pushes into still run there: they are that repository's, as a
 * server's are, and git hands the receiving side none of this environment.
 */
const HARDENING_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['protocol.ext.allow', 'never'],
];

/**
 * `GIT_CONFIG_*` of `extra` (the caller's entries, such as `askpassEnv`'s) with the hardening
 * after them, so that the hardening wins and the caller's entries are kept.
 */
function configVariables(extra: Record<string, string>): Record<string, string> {
  const entries: (readonly [string, string])[] = [];
  const count = Number(extra.GIT_CONFIG_COUNT ?? 0);
  for (let index = 0; index < count; index++) {
    const key = extra[`GIT_CONFIG_KEY_${index}`];
    if (key !== undefined) entries.push([key, extra[`GIT_CONFIG_VALUE_${index}`] ?? '']);
  }
  entries.push(...HARDENING_CONFIG);
  const variables: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    variables[`GIT_CONFIG_KEY_${index}`] = key;
    variables[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return variables;
}

/** Why a git command failed: it exited non-zero, ran out of time, was aborted, or could not start. */
export type GitFailure = 'exit' | 'timeout' | 'aborted' | 'spawn';

/** Transient transport failures worth retrying (the network, not the request, was at fault). */
const RETRYABLE_STDERR =
  /could not resolve host|connection (timed out|refused|reset)|early eof|returned error: 5\d\d|rpc failed|remote end hung up/i;

/**
 * A failed git command. Carries the subcommand (`fetch`), the exit code and a short stderr, never
 * the arguments or the environment: credentials travel in the environment, and values of
 * `options.env` are redacted from stderr in case git ever echoes one.
 */
export class GitError extends JobFailure<'repository_error'> {
  override name = 'GitError';
  readonly subcommand: string;
  /** null when git did not exit by itself (timeout, abort, spawn failure). */
  readonly exitCode: number | null;
  readonly stderr: string;
  readonly reason: GitFailure;
  /** True for timeouts and network failures; a retry may succeed. */
  readonly isRetryable: boolean;

  constructor(subcommand: string, reason: GitFailure, exitCode: number | null, stderr: string) {
    const detail =
      reason === 'timeout'
        ? 'timed out'
        : reason === 'aborted'
          ? 'was aborted'
          : reason === 'spawn'
            ? 'could not start'
            : `failed (exit ${exitCode})`;
    const firstLines = stderr.split('\n').slice(0, 3).join(' ').slice(0, 300);
    super('repository_error', `git ${subcommand} ${detail}${firstLines ? `: ${firstLines}` : ''}`);
    this.subcommand = subcommand;
    this.reason = reason;
    this.exitCode = exitCode;
    this.stderr = stderr;
    this.isRetryable = reason === 'timeout' || RETRYABLE_STDERR.test(stderr);
  }
}

/** Options of `runGit`. */
export interface RunGitOptions {
  cwd?: string;
  /** Added to the hardened environment; may hold credentials (see `askpassEnv`). */
  env?: Record<string, string>;
  /** Kill git after this long. Default `DEFAULT_GIT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Written to git's stdin; without it stdin is /dev/null so git can never wait on us. */
  input?: string | Buffer;
  signal?: AbortSignal;
  /**
   * Stop reading after this many bytes of stdout: git is killed and the result has
   * `truncated: true` instead of an error. For commands whose output can be huge (grep).
   */
  maxStdoutBytes?: number;
  /**
   * Exit codes besides 0 that resolve instead of rejecting, for commands whose output says what
   * went wrong in detail (`push --porcelain`: one line per ref). The result's `exitCode` tells.
   */
  acceptExitCodes?: readonly number[];
}

/** What a successful git command printed. */
export interface RunGitResult {
  stdout: Buffer;
  stderr: string;
  /** True when `maxStdoutBytes` cut the output short. */
  truncated: boolean;
  /** 0, or one of `acceptExitCodes`; null when cut short by `maxStdoutBytes`. */
  exitCode: number | null;
}

/**
 * The environment every git process gets: the allowed part of `from` (ours by default), the
 * hardening, then `extra` (credentials, identity, an index file), which the caller chose; config
 * entries of `extra` are merged with `HARDENING_CONFIG`, which always comes last.
 */
export function gitEnvironment(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  const rest = Object.fromEntries(
    Object.entries(extra).filter(([name]) => !/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(name)),
  );
  return { ...env, ...HARDENING, ...rest, ...configVariables(extra) };
}

/** The git subcommand in an argument list, skipping global options such as `-C dir` and `-c key=value`. */
export function subcommandOf(args: readonly string[]): string {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '-c' || arg === '-C') index++;
    else if (!arg.startsWith('-')) return arg;
  }
  return 'git';
}

/** A git process started by `spawnGit`. */
export interface GitProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Kills git and every process it started (its process group). Safe to call more than once. */
  kill(): void;
}

/**
 * Starts `git <args>` with the hardened environment (plus `options.env`), in its own process group
 * so that killing it also kills its helpers (`git-remote-https`, `upload-pack`, a lazy fetch of a
 * partial clone), which would otherwise keep our pipes open. `signal` kills the group when it aborts.
 */
export function spawnGit(
  args: readonly string[],
  options: {
    cwd?: string | undefined;
    env?: Record<string, string> | undefined;
    signal?: AbortSignal | undefined;
  },
): GitProcess {
  const child = spawn('git', args, { cwd: options.cwd, env: gitEnvironment(options.env), detached: true });
  const kill = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already (ESRCH); the child itself may still be reaped.
      child.kill('SIGKILL');
    }
  };
  const { signal } = options;
  if (signal) {
    signal.addEventListener('abort', kill, { once: true });
    const forget = () => signal.removeEventListener('abort', kill);
    child.once('close', forget).once('error', forget);
  }
  // git may exit before reading all of its input (EPIPE); its exit code tells what happened.
  child.stdin.on('error', () => {});
  return { child, kill };
}

/**
 * Runs `git <args>` and resolves with its output, or rejects with a `GitError`. A timeout or an
 * abort kills git's whole process group (`spawnGit`).
 */
export function runGit(args: string[], options: RunGitOptions = {}): Promise<RunGitResult> {
  const subcommand = subcommandOf(args);
  const { signal, input, maxStdoutBytes } = options;
  if (signal?.aborted) return Promise.reject(new GitError(subcommand, 'aborted', null, ''));
  // Credentials travel in `options.env`: none of its values may come back in what git says.
  const redact = createRedactor(Object.values(options.env ?? {}));

  return new Promise((resolve, reject) => {
    // Without `input`, stdin is closed at once: git can never wait on us.
    const { child, kill: killGroup } = spawnGit(args, { cwd: options.cwd, env: options.env });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let truncated = false;
    let settled = false;

    const finish = (error: GitError | null, exitCode: number | null = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve({ stdout: Buffer.concat(stdout), stderr: redact(stderr), truncated, exitCode });
    };
    const fail = (reason: GitFailure, exitCode: number | null) =>
      finish(new GitError(subcommand, reason, exitCode, redact(stderr.trim()).slice(-STDERR_LIMIT)));
    const onAbort = () => {
      killGroup();
      fail('aborted', null);
    };

    const timer = setTimeout(() => {
      killGroup();
      fail('timeout', null);
    }, options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS);
    signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      stdout.push(chunk);
      stdoutBytes += chunk.length;
      if (maxStdoutBytes !== undefined && stdoutBytes >= maxStdoutBytes) {
        truncated = true;
        killGroup();
        finish(null);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // Keep the tail: git's final `fatal:` line is the informative one.
      stderr = (stderr + chunk.toString('utf8')).slice(-4 * STDERR_LIMIT);
    });
    child.on('error', () => fail('spawn', null));
    child.on('close', (code) => {
      if (code === 0 || (code !== null && options.acceptExitCodes?.includes(code))) finish(null, code);
      else fail('exit', code);
    });
    child.stdin.end(input);
  });
}

const ASKPASS_SCRIPT = `#!/bin/sh
# agentjobs: git asks "Username for '<url>': " then "Password for '<url>': ".
# The answers come from the environment of this one git process; nothing secret is stored here.
case "$1" in
  Username*) printf '%s\\n' "$AGENTJOBS_GIT_USERNAME" ;;
  *) printf '%s\\n' "$AGENTJOBS_GIT_TOKEN" ;;
esac
`;

/** What git answers when a code host asks who it is: a user name the host expects, and the token. */
export interface GitCredentials {
  /**
   * The user name for HTTP basic authentication. Hosts differ: GitHub takes `x-access-token`,
   * GitLab `oauth2`, Gitea any name with the token as the password.
   */
  username: string;
  token: string;
}

/**
 * Environment that lets git authenticate with a token over HTTPS without the token ever being in
 * an argument list, a URL or a file: git calls the askpass script, which echoes environment
 * variables. The script is written once into `dir` (mode 0700). Configured credential helpers are
 * switched off for these commands (through `GIT_CONFIG_COUNT`), so none of them can store the token.
 * Returns `{}` without credentials (public repositories, local paths).
 */
export function askpassEnv(dir: string, credentials: GitCredentials | null): Record<string, string> {
  if (credentials === null) return {};
  const script = join(dir, 'agentjobs-askpass.sh');
  let current: string | null = null;
  try {
    current = readFileSync(script, 'utf8');
  } catch {
    // Not written yet.
  }
  if (current !== ASKPASS_SCRIPT) {
    mkdirSync(dir, { recursive: true });
    // Write then rename, so a concurrent git never runs a half-written script.
    const temporary = `${script}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temporary, ASKPASS_SCRIPT, { mode: 0o700 });
    chmodSync(temporary, 0o700);
    renameSync(temporary, script);
  }
  return {
    GIT_ASKPASS: script,
    AGENTJOBS_GIT_USERNAME: credentials.username,
    AGENTJOBS_GIT_TOKEN: credentials.token,
    // An empty credential.helper resets the list of helpers from global config.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'credential.helper',
    GIT_CONFIG_VALUE_0: '',
  };
}
