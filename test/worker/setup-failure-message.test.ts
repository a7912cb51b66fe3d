import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUOTED_OUTPUT_CHARS } from '../../src/checks/command-outcome.js';
import { SetupFailedError } from '../../src/run/errors.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-setup-message-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A setup that fails (issue 37): `npm ci` in a repository without a lockfile, as a newcomer's
// plain-Markdown project has it. The real npm's output; its cache under /tmp as in the sandbox.
describe("a failed setup's message", () => {
  it('shows the lines that explain the failure, and no path inside the sandbox', () => {
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'docs', version: '1.0.0', devDependencies: { 'markdownlint-cli2': '^0.13.0' } }),
    );
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { ...process.env, npm_config_cache: path.join(dir, '.npm'), npm_config_update_notifier: 'false' },
      encoding: 'utf8',
    });
    expect(npm.status).not.toBe(0);
    const output = `${npm.stdout}${npm.stderr}`;
    // What the setup's outcome quotes: the output's tail (checks/command-outcome.ts).
    const error = new SetupFailedError(
      'The setup command `npm ci` failed (exit 1).',
      `Its output ends with:\n…${output.slice(-QUOTED_OUTPUT_CHARS)}`,
    );
    expect(error.code).toBe('setup_failed');
    expect(error.message).toMatch(/^The setup command `npm ci` failed \(exit 1\)\. Its first error:\n/);
    expect(error.message).toContain('can only install with an existing package-lock.json');
    expect(error.message).not.toContain(dir);
    expect(error.message).not.toMatch(/\/tmp\//);
  });
});
