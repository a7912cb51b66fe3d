/**
 * A project's check command in the real sandbox (bubblewrap): the bad inputs of the checks issue.
 * Skipped where bwrap cannot run, unless AGENTJOBS_REQUIRE_SANDBOX=1 (CI) makes that a failure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommandCheck } from '../../src/checks/command.js';
import { createRedactor } from '../../src/domain/redact.js';
import { ensureMirror } from '../../src/git/mirror.js';
import { runGit } from '../../src/git/run.js';
import { Workspace } from '../../src/git/workspace.js';
import { sandboxForTests, siteFolder } from '../support/sandbox-site.js';

const status = await sandboxForTests('Sandbox tests');

const SECRET = 'sk-ant-test-secret-value-0123456789abcdef';
let root: string;
let site: string;

beforeAll(() => {
  ({ root, site } = siteFolder('sandbox'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1024 * 1024;
/** Limits small enough to reach quickly. */
const SANDBOX = { processes: 64, memoryBytes: 256 * MiB, diskBytes: 64 * MiB, unlimited: false };

/** Runs `command` on a copy of the fixture site, as the worker would. */
function run(command: string, timeoutSeconds = 20) {
  return runCommandCheck({
    command,
    timeoutSeconds,
    sandbox: SANDBOX,
    materialize: async (target) => {
      execFileSync('cp', ['-a', `${site}/.`, target]);
    },
    scratchDir: join(root, 'scratch'),
    redact: createRedactor([SECRET]),
  });
}

/** Processes whose command line holds `marker`. */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

describe.skipIf(!status.available)('a check command in the sandbox', () => {
  it('passes on exit code 0 and fails with the tail of its output otherwise', async () => {
    expect(await run('test -f docs/index.md')).toMatchObject({ name: 'command', status: 'passed' });
    const failed = await run('echo "docs/index.md:1 broken link"; exit 3');
    expect(failed.status).toBe('failed');
    expect(failed.message).toContain('exit code 3');
    expect(failed.problems[0]?.message).toContain('docs/index.md:1 broken link');
  });

  it('kills a command that loops forever at the time limit, and the run goes on', async () => {
    const result = await run('while true; do :; done', 2);
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.message).toMatch(/did not finish within 2 s and was stopped/);
  });

  it('caps the output of a command that prints 100 MB', async () => {
    const result = await run('head -c 100000000 /dev/zero | tr "\\0" a; echo; echo the-end; exit 1');
    const message = result.problems[0]?.message ?? '';
    expect(message.length).toBeLessThan(10_000);
    expect(message).toMatch(/Its output ends with:\n…a+\nthe-end$/);
  });

  it('has no network, and says the sandbox blocked it', async () => {
    const result = await run(
      `node -e "require('http').get('http://example.com').on('error', (e) => { console.error(e.message); process.exit(1); })"`,
    );
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/tried to reach the network, which the sandbox blocks/);
  });

  it('cannot write outside the checkout, nor see the repository or the service', async () => {
    const upstream = join(root, 'upstream');
    mkdirSync(upstream);
    const git = (...args: string[]) =>
      runGit(args, {
        cwd: upstream,
        env: {
          GIT_AUTHOR_NAME: 'U',
          GIT_AUTHOR_EMAIL: 'u@x',
          GIT_COMMITTER_NAME: 'U',
          GIT_COMMITTER_EMAIL: 'u@x',
        },
      });
    writeFileSync(join(upstream, 'page.md'), '# Page\n');
    await git('init', '--quiet', '--initial-branch=main');
    await git('add', '.');
    await git('commit', '--quiet', '-m', 'first');
    const mirrorPath = await ensureMirror({
      mirrorsDir: join(root, 'mirrors'),
      projectId: 'p',
      repository: upstream,
      env: {},
    });
    const config = readFileSync(join(mirrorPath, 'config'), 'utf8');
    const workspace = await Workspace.create({
      mirrorPath,
      dir: join(root, 'worktree'),
      branch: 'job',
      baseRef: 'main',
    });
    try {
      await workspace.writeFile('new.md', '# New, not yet committed\n');
      const result = await runCommandCheck({
        command: [
          'test -f new.md && test -f page.md && test ! -e .git',
          `echo x >> ${mirrorPath}/config`,
          'echo x > /usr/local/evil',
          'echo x > /etc/passwd',
          `ls ${root}`,
          'mkdir -p .git && echo x > .git/config',
          'exit 1',
        ].join('; '),
        timeoutSeconds: 20,
        sandbox: SANDBOX,
        materialize: (target) => workspace.materialize(target),
        scratchDir: join(root, 'scratch'),
        redact: createRedactor([]),
      });
      const output = result.problems[0]?.message ?? '';
      expect(output).toMatch(/config: (No such file or directory|Directory nonexistent)/);
      expect(output).toMatch(/\/usr\/local\/evil: Read-only file system/);
      expect(output).toMatch(/\/etc\/passwd: Read-only file system/);
      expect(output).toMatch(/cannot access .*No such file or directory/);
      expect(readFileSync(join(mirrorPath, 'config'), 'utf8')).toBe(config);
      expect(existsSync('/usr/local/evil')).toBe(false);
      // The checkout is removed after the run.
      expect(readdirSync(join(root, 'scratch'))).toEqual([]);
    } finally {
      await workspace.close();
    }
  });

  it('kills a process that outlives the command', async () => {
    const marker = `${Date.now() % 100000}.25`;
    const result = await run(`(sleep ${marker} &) ; sleep ${marker} & echo started`);
    expect(result.status).toBe('passed');
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('fails clearly on a command that is not found', async () => {
    const result = await run('mint-not-installed broken-links');
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/exit code 127\)\. A program it runs was not found in the sandbox/);
    expect(result.problems[0]?.message).toContain('mint-not-installed: not found');
  });

  it('gets none of the service environment, and its output is redacted', async () => {
    process.env.AGENTJOBS_SANDBOX_TEST_SECRET = 'hunter2-do-not-leak';
    try {
      const result = await run(`env; echo ${SECRET}; exit 1`);
      const output = result.problems[0]?.message ?? '';
      expect(output).toContain('CI=1');
      expect(output).not.toContain('hunter2-do-not-leak');
      expect(output).not.toContain(SECRET);
      expect(output).toContain('[redacted]');
    } finally {
      delete process.env.AGENTJOBS_SANDBOX_TEST_SECRET;
    }
  });
});
