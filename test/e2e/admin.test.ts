import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardCookie } from '../support/e2e.js';
import { runCli, startServerProcess } from '../support/processes.js';

// The dashboard password as an operator meets it: printed once at the first start, replaced with
// `agentjobs admin password`.
describe('the admin password', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-admin-'));
    env = { AGENTJOBS_DATA_DIR: dir, AGENTJOBS_ADMIN_PASSWORD: '' };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is generated and printed once at the first start, never into a log line', async () => {
    const first = await startServerProcess(env);
    let password = '';
    try {
      await expect.poll(() => first.output.some((line) => line.includes('Admin password'))).toBe(true);
      password = /Admin password \(shown this once\): (\w+)/.exec(first.output.join('\n'))?.[1] ?? '';
      expect(password).toMatch(/^\w{20}$/);
      expect(first.output.filter((line) => line.includes(password))).toHaveLength(1);
      expect(first.output.filter((line) => line.startsWith('{') && line.includes(password))).toEqual([]);
      expect(await dashboardCookie(first.url, password)).toContain('agentjobs_session=');
    } finally {
      await first.stop();
    }
    const second = await startServerProcess(env);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(second.output.join('\n')).not.toContain('Admin password');
      expect(await dashboardCookie(second.url, password)).toContain('agentjobs_session=');
    } finally {
      await second.stop();
    }
  });

  it('is replaced by `agentjobs admin password`, which signs every browser out', async () => {
    const server = await startServerProcess(env);
    try {
      const generated = await runCli(['admin', 'password', '--json'], env);
      expect(generated.code).toBe(0);
      const { password } = JSON.parse(generated.stdout) as { password: string };
      const cookie = await dashboardCookie(server.url, password);
      const chosen = await runCli(['admin', 'password', '--stdin'], env, 'a password I chose\n');
      expect(chosen.code).toBe(0);
      expect(chosen.stdout).not.toContain('a password I chose');
      // The old session is gone; the old password no longer works; the new one does.
      const page = await fetch(`${server.url}/ui/projects`, { headers: { cookie }, redirect: 'manual' });
      expect(page.status).toBe(303);
      await expect(dashboardCookie(server.url, password)).rejects.toThrow('sign-in failed with 401');
      expect(await dashboardCookie(server.url, 'a password I chose')).toContain('agentjobs_session=');
      const short = await runCli(['admin', 'password', '--stdin'], env, 'short\n');
      expect(short.code).not.toBe(0);
      expect(short.stderr).toContain('at least 8 characters');
    } finally {
      await server.stop();
    }
  });
});
