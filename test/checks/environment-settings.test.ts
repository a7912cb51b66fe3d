/**
 * A project's environment settings through the built CLI, on each database: `--setup-command` and
 * `--agent-commands` on `project create|update`, shown by `project get`; refused (fail closed,
 * naming the limits) where control groups cannot cap the sandbox.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { cliWithoutGroups, createDocsArgs } from '../support/check-cli.js';
import { createTestDatabase, type TestDatabase, testDialects } from '../support/db.js';
import { committedRepo } from '../support/e2e.js';
import { runCli } from '../support/processes.js';

const sandbox = await sandboxStatus({ unlimited: false });

describe.each(testDialects())('environment settings on the command line (%s)', (dialect) => {
  let dir: string;
  let repo: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-environment-cli-'));
    repo = path.join(dir, 'docs');
    committedRepo(repo);
    database = await createTestDatabase(dialect);
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const cli = (args: string[]) => runCli(args, env);
  const createDocs = (...options: string[]) => createDocsArgs(repo, ...options);

  it('is off by default, and only what the admin sets', async () => {
    const created = await cli(createDocs('--json'));
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ setupCommand: null, agentCommands: false });
    const wrong = await cli([
      'project',
      'update',
      JSON.parse(created.stdout).id,
      '--agent-commands',
      'maybe',
    ]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('--agent-commands takes yes or no (got "maybe")');
  });

  it.skipIf(!sandbox.available)('sets, shows and removes them', async () => {
    const created = await cli(createDocs('--setup-command', 'npm ci', '--agent-commands', 'yes', '--json'));
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project).toMatchObject({ setupCommand: 'npm ci', agentCommands: true });
    const shown = await cli(['project', 'get', project.id]);
    expect(shown.stdout).toMatch(/setup command\s+npm ci/);
    expect(shown.stdout).toMatch(/agent commands\s+yes/);
    const multiline = await cli(['project', 'update', project.id, '--setup-command', 'npm ci\nrm -rf /']);
    expect(multiline.stderr).toContain('--setup-command must be one line');
    const removed = await cli([
      'project',
      'update',
      project.id,
      '--setup-command',
      '',
      '--agent-commands',
      'no',
      '--json',
    ]);
    expect(JSON.parse(removed.stdout)).toMatchObject({ setupCommand: null, agentCommands: false });
    const again = await cli(['project', 'get', project.id, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ setupCommand: null, agentCommands: false });
  });

  it.skipIf(!sandbox.available || process.getuid?.() !== 0 || dialect !== 'sqlite')(
    'refuses them where control groups cannot cap the sandbox, naming the limits',
    async () => {
      for (const flags of [
        ['--setup-command', 'npm ci'],
        ['--agent-commands', 'yes'],
      ]) {
        const refused = await cliWithoutGroups(createDocs(...flags), env);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toMatch(
          new RegExp(
            `${flags[0]} cannot be (set|turned on): commands run only in the sandbox.*The processes and memory limits cannot be enforced`,
          ),
        );
      }
    },
  );
});
