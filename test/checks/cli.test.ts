/**
 * Check settings through the built CLI, as an admin sets them: `project create|update` with the
 * check options, `project check` reporting the sandbox, and a command refused where the sandbox
 * cannot run (here: a PATH without bubblewrap).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { createDocsArgs, cliWithoutGroups as withoutGroups } from '../support/check-cli.js';
import { committedRepo } from '../support/e2e.js';
import { runCli } from '../support/processes.js';

const sandbox = await sandboxStatus({ unlimited: false });
let dir: string;
let env: Record<string, string>;
let repo: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-checks-cli-'));
  repo = path.join(dir, 'docs');
  committedRepo(repo);
  env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data') };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(args, { ...env, ...extraEnv });
}

/** `cliWithoutGroups` with the suite's environment and `extraEnv`. */
const cliWithoutGroups = (args: string[], extraEnv: Record<string, string> = {}) =>
  withoutGroups(args, { ...env, ...extraEnv });

/** `project create` of the repository as "Docs", with `options`. */
const createDocs = (...options: string[]) => createDocsArgs(repo, ...options);

describe('check settings on the command line', () => {
  it('creates a project with checks, and updates them', async () => {
    const created = await cli(createDocs('--on-check-failure', 'fail', '--json'));
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project).toMatchObject({
      builtInChecks: true,
      checkCommand: null,
      checkTimeoutSeconds: 300,
      onCheckFailure: 'fail',
    });

    const updated = await cli([
      'project',
      'update',
      project.id,
      '--no-built-in-checks',
      '--check-timeout',
      '90',
      '--on-check-failure',
      'publish',
      '--json',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      builtInChecks: false,
      checkTimeoutSeconds: 90,
      onCheckFailure: 'publish',
    });

    const bad = await cli(['project', 'update', project.id, '--on-check-failure', 'maybe']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--on-check-failure must be one of draft, fail, publish');
    const slow = await cli(['project', 'update', project.id, '--check-timeout', '0']);
    expect(slow.stderr).toContain('--check-timeout must be a whole number of seconds from 1 to 3600');
  });

  it.skipIf(!sandbox.available)(
    'sets a command where the sandbox runs, and project check says so',
    async () => {
      const created = await cli(createDocs('--check-command', 'vale .', '--json'));
      expect(created.code, created.stderr).toBe(0);
      const project = JSON.parse(created.stdout);
      expect(project.checkCommand).toBe('vale .');
      const check = await cli(['project', 'check', project.id, '--json']);
      expect(JSON.parse(check.stdout).checks).toContainEqual({
        name: 'sandbox',
        ok: true,
        detail: expect.stringContaining('can run'),
      });
      const removed = await cli(['project', 'update', project.id, '--check-command', '', '--json']);
      expect(JSON.parse(removed.stdout).checkCommand).toBeNull();
    },
  );

  it('refuses a command where bubblewrap is missing, with the reason', async () => {
    // A PATH with git alone: the CLI runs under node's own path, and finds no bwrap.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync(execFileSync('sh', ['-c', 'command -v git']).toString().trim(), path.join(bin, 'git'));
    const refused = await cli(createDocs('--check-command', 'vale .'), { PATH: bin });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /--check-command cannot be set: commands run only in the sandbox, and it is not available here\. bwrap and prlimit are not installed/,
    );
    expect(refused.stderr).not.toContain('..');
  });

  it.skipIf(!sandbox.available || process.getuid?.() !== 0)(
    'refuses a command where control groups cannot cap it, naming the limits, unless AGENTJOBS_SANDBOX_UNLIMITED says to run it (unsafe)',
    async () => {
      const create = createDocs('--check-command', 'vale .');
      const refused = await cliWithoutGroups(create);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(
        /--check-command cannot be set: commands run only in the sandbox, and it is not available here\. A limit of the sandbox cannot be enforced on this machine\. The processes and memory limits cannot be enforced: processes: .*AGENTJOBS_SANDBOX_UNLIMITED=true/,
      );
      expect(refused.stderr).not.toContain('(unsafe)..');

      const unsafe = { AGENTJOBS_SANDBOX_UNLIMITED: 'true' };
      const created = await cliWithoutGroups([...create, '--json'], unsafe);
      expect(created.code, created.stderr).toBe(0);
      const project = JSON.parse(created.stdout);
      const check = await cliWithoutGroups(['project', 'check', project.id, '--json'], unsafe);
      expect(JSON.parse(check.stdout).checks).toContainEqual({
        name: 'sandbox',
        ok: true,
        detail: expect.stringMatching(
          /Unsafe: AGENTJOBS_SANDBOX_UNLIMITED=true runs commands without these limits\. The processes and memory limits cannot be enforced/,
        ),
      });
      // Where control groups work, project check names the limits it enforces.
      const checked = await cli(['project', 'check', project.id, '--json']);
      expect(JSON.parse(checked.stdout).checks).toContainEqual({
        name: 'sandbox',
        ok: true,
        detail: expect.stringContaining('within 256 processes, 2048 MiB of memory, 1024 MiB written'),
      });
    },
  );
});
