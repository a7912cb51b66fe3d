import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { checkProject } from '../../src/hosts/index.js';
import { createServerCodeHosts } from '../../src/server.js';
import { createSecretBox, lazySecretBox } from '../../src/store/secrets.js';
import { openTestStore, type TestStore } from '../support/db.js';

// The server gives the code hosts a secret lookup, never the store or the secret box: what the
// box refuses must still reach the operator as the host's finding.
describe('the code hosts the server builds', () => {
  let t: TestStore;
  let dataDir: string;
  beforeAll(async () => {
    t = await openTestStore('sqlite');
    dataDir = mkdtempSync(join(tmpdir(), 'agentjobs-server-hosts-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const configWith = (secretKey: string) =>
    loadConfig({ AGENTJOBS_DATA_DIR: dataDir, AGENTJOBS_SECRET_KEY: secretKey, LOG_LEVEL: 'silent' });
  /** The server's code hosts under a key of their own, not the one the test sealed with. */
  const hostsWithNewKey = () => {
    const config = configWith(randomBytes(32).toString('hex'));
    return createServerCodeHosts(config, t.store, { secrets: lazySecretBox(config) });
  };

  it('says a token sealed under another key cannot be opened, and what a missing one needs', async () => {
    const project = await t.store.projects.create({
      name: 'Docs',
      repository: 'https://gitea.example.com/org/docs.git',
      host: 'gitea',
    });
    const missing = await checkProject(hostsWithNewKey(), project);
    expect(missing).toEqual([
      { name: 'credentials', ok: false, detail: expect.stringContaining('agentjobs project token') },
    ]);

    await t.store.projects.setHostToken(
      project.id,
      'plain-token-5678',
      createSecretBox(randomBytes(32).toString('hex')),
    );
    const sealed = (await t.store.projects.get(project.id)) ?? project;
    const hosts = hostsWithNewKey();
    const checks = await checkProject(hosts, sealed);
    expect(checks).toEqual([
      { name: 'credentials', ok: false, detail: expect.stringMatching(/cannot be opened/) },
    ]);
    expect(JSON.stringify(checks)).not.toContain('plain-token');
  });
});
