/**
 * What a cached environment depends on and what it may hold: its key covers every setup input (the
 * command, lockfiles, package.json, the files the command names) and nothing else; what a setup
 * leaves carries no setuid or setgid bit, no write for others and, for a service running as root,
 * no root ownership, and is laid in with nosuid.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../src/checks/agent-command.js';
import { environmentKey, prepareEnvironment } from '../../src/checks/environment.js';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { createRedactor } from '../../src/domain/redact.js';

const status = await sandboxStatus({ unlimited: false });
const MiB = 1024 * 1024;
const SANDBOX = { processes: 64, memoryBytes: 256 * MiB, diskBytes: 64 * MiB, unlimited: false };

let root: string;
let repo: string;
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
/** Commits `files` on main and returns the commit. */
function commit(files: Record<string, string>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'change');
  return git('rev-parse', 'HEAD');
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-environment-inputs-'));
  repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the environment’s cache key', () => {
  it('changes with every setup input and with nothing else', async () => {
    const first = commit({
      'package-lock.json': '{}\n',
      'package.json': '{"scripts":{}}\n',
      'scripts/setup.sh': 'npm ci\n',
      'docs/index.md': '# Home\n',
    });
    const key = (at: string, command = 'bash ./scripts/setup.sh') => environmentKey(repo, at, command);
    const base = await key(first);
    // A page is no input.
    expect(await key(commit({ 'docs/index.md': '# Home, again\n' }))).toBe(base);
    // The script the command names, package.json (its postinstall runs at install), a lockfile,
    // a nested package.json, and the command itself each change it.
    const script = commit({ 'scripts/setup.sh': 'npm ci && ./trojan\n' });
    expect(await key(script)).not.toBe(base);
    const manifest = commit({ 'package.json': '{"scripts":{"postinstall":"./trojan"}}\n' });
    expect(await key(manifest)).not.toBe(await key(script));
    const nested = commit({ 'site/package.json': '{}\n' });
    expect(await key(nested)).not.toBe(await key(manifest));
    const lockfile = commit({ 'site/yarn.lock': '# yarn\n' });
    expect(await key(lockfile)).not.toBe(await key(nested));
    expect(await key(lockfile, 'npm ci')).not.toBe(await key(lockfile));
    // A folder the command names counts whole.
    const folder = commit({ 'tools/helper.sh': 'echo one\n' });
    const again = commit({ 'tools/helper.sh': 'echo two\n' });
    expect(await key(again, 'make -C tools')).not.toBe(await key(folder, 'make -C tools'));
    expect(await key(again, 'npm ci')).toBe(await key(folder, 'npm ci'));
  });
});

describe.skipIf(!status.available)('what an environment keeps', () => {
  it('has no setuid, setgid or sticky bit, no write for others, no root owner, and is laid in nosuid', async () => {
    const at = commit({ 'setup.sh': 'echo setup\n' });
    const made = await prepareEnvironment({
      projectId: 'setuid',
      command:
        'mkdir -p node_modules/.bin node_modules/shared && printf "#!/bin/sh\\necho tool\\n" > node_modules/.bin/tool && chmod 6777 node_modules/.bin/tool && chmod 3777 node_modules/shared && echo data > node_modules/shared/file && chmod 4666 node_modules/shared/file',
      environmentsDir: join(root, 'environments'),
      gitDir: repo,
      baseCommit: at,
      timeoutSeconds: 30,
      sandbox: SANDBOX,
      maxBytes: 32 * MiB,
      redact: createRedactor([]),
    });
    expect(made, JSON.stringify(made)).toMatchObject({ status: 'built' });
    if (made.status !== 'built') return;
    const modes = Object.fromEntries(
      ['node_modules', 'node_modules/.bin/tool', 'node_modules/shared', 'node_modules/shared/file'].map(
        (path) => [path, (lstatSync(join(made.dir, path)).mode & 0o7777).toString(8)],
      ),
    );
    expect(modes).toEqual({
      node_modules: '755',
      'node_modules/.bin/tool': '755',
      'node_modules/shared': '755',
      'node_modules/shared/file': '644',
    });
    if (process.getuid?.() === 0) {
      // Never root's on this machine: the sandbox's unprivileged user owns it all...
      expect(statSync(join(made.dir, 'node_modules/.bin/tool')).uid).toBe(65534);
      expect(statSync(join(made.dir, 'node_modules/shared/file')).gid).toBe(65534);
    }
    // ...in a folder only the service's user enters.
    expect((statSync(join(root, 'environments', 'setuid')).mode & 0o777).toString(8)).toBe('700');
    // Laid in, it still works, read-only and nosuid.
    const ran = await runAgentCommand({
      command: 'node_modules/.bin/tool && grep " /checkout/node_modules " /proc/self/mountinfo',
      timeoutSeconds: 30,
      sandbox: SANDBOX,
      environment: made.dir,
      materialize: async () => {},
      scratchDir: join(root, 'scratch'),
      redact: createRedactor([]),
    });
    expect(ran).toMatch(/^Exit code: 0\.\nIts output:\ntool\n/);
    expect(ran).toMatch(/ ro,nosuid,/);
  });
});
