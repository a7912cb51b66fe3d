import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

// npm 11 warns after every `npm ci` about dependencies whose install scripts package.json's
// `allowScripts` does not cover, and npm 12 skips those scripts: better-sqlite3 would not build.
describe("the dependencies' install scripts", () => {
  it('are each allowed or denied in package.json, and the native ones allowed', () => {
    const allowed: Record<string, boolean> = read('package.json').allowScripts ?? {};
    const lock: { packages: Record<string, { hasInstallScript?: boolean }> } = read('package-lock.json');
    const scripted = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    expect(scripted).toContain('better-sqlite3');
    for (const name of scripted) expect(typeof allowed[name], name).toBe('boolean');
    expect(allowed['better-sqlite3']).toBe(true);
  });

  it('leave npm nothing to warn about', () => {
    let pending: string;
    try {
      pending = execFileSync('npm', ['approve-scripts', '--allow-scripts-pending'], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      // An npm before 11.16 has no such command (and no such warning): the check above stands.
      expect(String((error as { stderr?: string }).stderr)).toMatch(/Unknown command|approve-scripts/);
      return;
    }
    expect(pending).toContain('No packages with unreviewed install scripts.');
  });
});
