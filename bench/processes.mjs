// What the benchmark scripts share about the processes they start.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(new URL('..', import.meta.url).pathname, 'dist/cli/main.js');

/** Runs the built CLI (or the one at `cliPath`) with `--json` and returns what it printed, parsed. */
export function cli(args, env, cliPath = CLI) {
  return JSON.parse(
    execFileSync(process.execPath, [cliPath, ...args, '--json'], {
      env: { ...process.env, ...env },
    }).toString(),
  );
}

/**
 * A project on an empty repository in `dataDir` (with the first commit the CLI's repository check
 * asks for) and a read+write key for it, made through the built CLI (or the one at `cliPath`).
 */
export function benchProject(dataDir, env, cliPath = CLI) {
  const repo = path.join(dataDir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com'];
  execFileSync('git', ['-C', repo, ...identity, 'commit', '-q', '--allow-empty', '-m', 'init']);
  const project = cli(['project', 'create', '--name', 'Bench', '--repo', repo], env, cliPath);
  const { key } = cli(['key', 'create', '--project', project.id], env, cliPath);
  return { project, key };
}

/**
 * Resolves with the first match of `pattern` in a child's output. From then on the output is only
 * drained: a server under load logs every request, and keeping or scanning that output here would
 * slow down the load generator that runs in this process.
 */
export function firstLine(child, pattern) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      const match = pattern.exec(seen);
      if (!match) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.stdout.resume();
      child.stderr.resume();
      resolve(match);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${seen.slice(-2000)}`)));
  });
}

const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill();
});

/**
 * `child`, killed when this script exits, however it exits: a script that fails halfway (a server
 * that would not start, a refused request) must not leave the servers it started running.
 */
export function killedOnExit(child) {
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

/** Sends SIGTERM to `child` and resolves when it has exited (at once if it already has). */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}
