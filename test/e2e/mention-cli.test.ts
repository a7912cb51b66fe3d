import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { makeRepo, tempDir } from '../support/worker.js';

// The project's mention on the command line (docs/automations.md):
// `project create|update --mention @word`, shown by `project get`.
describe('agentjobs project --mention', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('mention-cli');
    env = { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), HOME: dir };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is @agentjobs by default, set at creation and by update, and refuses what is no mention', async () => {
    const repo = makeRepo(dir).repo;
    const plain = await runCli(['project', 'create', '--name', 'Plain', '--repo', repo, '--json'], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout).mention).toBe('@agentjobs');

    const created = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', repo, '--mention', '@docs-bot', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project.mention).toBe('@docs-bot');

    const updated = await runCli(['project', 'update', project.id, '--mention', '@Handbook_2'], env);
    expect(updated.code, updated.stderr).toBe(0);
    const shown = await runCli(['project', 'get', project.id], env);
    expect(shown.stdout).toMatch(/mention\s+@Handbook_2/);

    for (const bad of ['docs-bot', '@', '@two words', `@${'a'.repeat(40)}`, '@bot!']) {
      const refused = await runCli(['project', 'update', project.id, '--mention', bad], env);
      expect(refused.code, bad).toBe(1);
      expect(refused.stderr).toContain(
        `--mention must be @ followed by 1 to 39 letters, digits, _ or - (got "${bad}")`,
      );
    }
    const refusedCreate = await runCli(
      ['project', 'create', '--name', 'Other', '--repo', repo, '--mention', 'nobody', '--json'],
      env,
    );
    expect(refusedCreate.code).toBe(1);
    const list = JSON.parse((await runCli(['project', 'list', '--json'], env)).stdout);
    // Nothing half-made: the refused creation left no project, the refused updates no change.
    expect(list.projects.map((p: { name: string }) => p.name).sort()).toEqual(['Docs', 'Plain']);
    expect(JSON.parse((await runCli(['project', 'get', project.id, '--json'], env)).stdout).mention).toBe(
      '@Handbook_2',
    );
  });
});
