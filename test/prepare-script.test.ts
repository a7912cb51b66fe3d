import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// scripts/prepare.mjs in a checkout of its own without node_modules: what `npm ci --omit=dev` leaves.
describe('the prepare script without dev dependencies', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const checkout = () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-prepare-'));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.copyFileSync('scripts/prepare.mjs', path.join(dir, 'scripts/prepare.mjs'));
    fs.copyFileSync('package.json', path.join(dir, 'package.json'));
    return () => spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, encoding: 'utf8' });
  };

  it('does not fail the install, and says how to build and prune when nothing is built', () => {
    const result = checkout()();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('npm ci && npm run build && npm prune --omit=dev');
  });

  it('says nothing when the service is already built', () => {
    const prepare = checkout();
    fs.mkdirSync(path.join(dir, 'dist/cli'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist/cli/main.js'), '');
    const result = prepare();
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
  });
});
