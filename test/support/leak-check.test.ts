import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { promisify, stripVTControlCharacters } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);

// The suite's leak checks, run on files that leak on purpose (test/support/leak-fixtures/) by a
// vitest of their own: each leak fails the run, named with the file that left it.
describe('the leak checks', () => {
  it('fail a run that leaves a process, a temporary folder entry or a pool, and clear them', async () => {
    const outcome = await run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/support/leak-fixtures/vitest.config.ts'],
      { env: { ...process.env, AGENTJOBS_TEST_LEAK_GRACE_MS: '1000', CI: '', NO_COLOR: '1' } },
    ).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
    const output = stripVTControlCharacters(outcome.output);
    expect(outcome.code, output).toBe(1);
    expect(output).toMatch(/FAIL {2}test\/support\/leak-fixtures\/leaves-folder\.fixture\.ts/);
    expect(output).toMatch(/temporary folder entry: left-folder-/);
    expect(output).toMatch(/FAIL {2}test\/support\/leak-fixtures\/leaves-process\.fixture\.ts/);
    expect(output).toMatch(/process \d+: sleep 301/);
    expect(output).toMatch(/The test run left behind:\n {2}process \d+: sleep 302/);
    if (inject('postgresUrl')) {
      expect(output).toMatch(/FAIL {2}test\/support\/leak-fixtures\/leaves-pool\.fixture\.ts/);
      expect(output).toMatch(/PostgreSQL pool on postgres never ended/);
    }
    expect(output).toMatch(/✓ test\/support\/leak-fixtures\/clean\.fixture\.ts/);
    // What was left was ended and removed: nothing of the inner run outlives it.
    expect(fs.readdirSync(os.tmpdir())).toEqual([]);
    const innerSleeps = fs
      .readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          const environment = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
          return /^sleep\0?30[123]/.test(command) && environment.includes(`TMPDIR=${os.tmpdir()}/`);
        } catch {
          return false; // exited meanwhile, or not ours
        }
      });
    expect(innerSleeps).toEqual([]);
  }, 120_000);
});
