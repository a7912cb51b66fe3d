import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvalOptions, runTask } from '../../src/eval/runner.js';
import { answer, callTools, scriptedModel } from '../support/agent-fixture.js';
import { evalOptions, shippedTasks } from '../support/eval-fixture.js';

// A machine without the sandbox (no bubblewrap on the PATH: this file's process sees only git):
// a task that runs commands fails saying why, without running anything; the others run as ever.

const { task } = await shippedTasks();
const options = (model: EvalOptions['model']) => evalOptions(model);

let bin: string;
const path = process.env.PATH;
beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), 'agentjobs-no-sandbox-'));
  await symlink('/usr/bin/git', join(bin, 'git'));
  process.env.PATH = bin;
});
afterAll(async () => {
  process.env.PATH = path;
  await rm(bin, { recursive: true, force: true });
});

describe('an eval where the sandbox is not available', () => {
  it('fails a task that runs commands, saying the sandbox is missing and how to install it, before the agent runs', async () => {
    const model = scriptedModel([answer('never asked')]);
    const outcome = await runTask(task('readme-version-check'), options(model));
    expect(outcome).toMatchObject({ passed: false, steps: 0 });
    expect(outcome.failures).toEqual([
      expect.stringMatching(
        /^run: this task runs commands \(setup, command or agentCommands\), and the sandbox is not available here, so they cannot run: bwrap and prlimit are not installed: install the bubblewrap package/,
      ),
    ]);
    expect(model.doGenerateCalls.length + model.doStreamCalls.length).toBe(0);
  });

  it('runs a task without commands as ever', async () => {
    const outcome = await runTask(
      task('readme-question-only'),
      options(
        scriptedModel([
          callTools([['read_file', { path: 'packages/retry/README.md' }]]),
          answer('Use @toolbelt/retry.'),
        ]),
      ),
    );
    expect(outcome.failures).toEqual([]);
  });
});
