import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { committedRepo } from '../support/e2e.js';
import { runCli } from '../support/processes.js';

describe('agentjobs project --daily-budget-usd', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-budget-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent' };

  it('sets the budget at creation, changes it, removes it, and refuses a bad amount', async () => {
    const repo = path.join(dir, 'repo');
    committedRepo(repo);
    const created = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', repo, '--daily-budget-usd', '20', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project.dailyBudgetUsd).toBe(20);

    const changed = await runCli(['project', 'update', project.id, '--daily-budget-usd', '2.50'], env);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('$2.50 a day (UTC)');
    const removed = await runCli(
      ['project', 'update', project.id, '--daily-budget-usd', 'none', '--json'],
      env,
    );
    expect(JSON.parse(removed.stdout).dailyBudgetUsd).toBeNull();

    const bad = await runCli(['project', 'update', project.id, '--daily-budget-usd', '-3'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--daily-budget-usd: expected an amount in US dollars');
  });
});
