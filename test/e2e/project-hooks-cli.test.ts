import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { createStore } from '../../src/store/store.js';
import { committedRepo } from '../support/e2e.js';
import { runCli } from '../support/processes.js';

describe('agentjobs project hook-secret', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-hooks-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  const env = {
    AGENTJOBS_DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'silent',
    AGENTJOBS_PUBLIC_URL: 'https://agentjobs.example.com',
  };

  /** The secret the database holds for the project, opened with the server's key. */
  async function stored(projectId: string) {
    const db = openDb({ url: `sqlite:${path.join(dataDir, 'agentjobs.db')}` });
    try {
      const box = createSecretBox(fs.readFileSync(path.join(dataDir, 'secret.key'), 'utf8').trim());
      return await createStore(db).projects.hookSecret(projectId, box);
    } finally {
      await db.close();
    }
  }

  it('makes the secret once, shows it with each host’s URL and steps, and rotates it on request', async () => {
    const repo = path.join(dir, 'repo');
    committedRepo(repo);
    const created = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo, '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };

    const made = await runCli(['project', 'hook-secret', id], env);
    expect(made.code, made.stderr).toBe(0);
    const secret = /hooksec_[A-Za-z0-9_-]+/.exec(made.stdout)?.[0];
    expect(secret).toBeDefined();
    expect(await stored(id)).toBe(secret);
    for (const host of ['github', 'gitlab', 'gitea'])
      expect(made.stdout).toContain(`https://agentjobs.example.com/v2/hooks/${id}/${host}`);
    expect(made.stdout).toContain('Pull request review comments');

    const again = await runCli(['project', 'hook-secret', id, '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    const shown = JSON.parse(again.stdout);
    expect(shown).toMatchObject({ projectId: id, secret: null, rotated: false });
    expect(again.stdout).not.toContain(String(secret));
    expect(await stored(id)).toBe(secret);

    const rotated = await runCli(['project', 'hook-secret', id, '--rotate', '--json'], env);
    const fresh = JSON.parse(rotated.stdout);
    expect(fresh.rotated).toBe(true);
    expect(fresh.secret).toMatch(/^hooksec_/);
    expect(fresh.secret).not.toBe(secret);
    expect(await stored(id)).toBe(fresh.secret);
    // The secret never lands in the data directory in the clear.
    for (const file of fs.readdirSync(dataDir))
      if (fs.statSync(path.join(dataDir, file)).isFile())
        expect(fs.readFileSync(path.join(dataDir, file)).includes(fresh.secret)).toBe(false);

    const missing = await runCli(['project', 'hook-secret', '01JDQ2J7T0V5Y8G1ZK3M4N6P7R'], env);
    expect(missing.code).not.toBe(0);
  });
});
