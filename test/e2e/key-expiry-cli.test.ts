import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEY_EXPIRY_DAYS } from '../../src/domain/keys.js';
import { committedRepo } from '../support/e2e.js';
import { runCli } from '../support/processes.js';

const DAY_MS = 86_400_000;

// The built CLI makes keys with the dashboard's default expiry (90 days), and `never` on request.
describe('agentjobs key create --expires', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-key-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent' };

  it('expires in 90 days by default, like a key made in the dashboard', async () => {
    expect(DEFAULT_KEY_EXPIRY_DAYS).toBe(90);
    const repo = path.join(dir, 'repo');
    committedRepo(repo);
    const project = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env);
    expect(project.code, project.stderr).toBe(0);
    const projectId = JSON.parse(project.stdout).id as string;

    const before = Date.now();
    const made = await runCli(['key', 'create', '--project', projectId, '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    const expiresAt = Date.parse(JSON.parse(made.stdout).expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS);

    const text = await runCli(['key', 'create', '--project', projectId], env);
    expect(text.stdout).toMatch(/, expires \d{4}-\d\d-\d\dT/);

    const never = await runCli(
      ['key', 'create', '--project', projectId, '--expires', 'never', '--json'],
      env,
    );
    expect(never.code, never.stderr).toBe(0);
    expect(JSON.parse(never.stdout).expiresAt).toBeNull();

    const help = await runCli(['key', 'create', '--help'], env);
    expect(help.stdout).toContain('(default: "90d")');
  });
});
