import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { protectDataDir } from './data-dir.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-protect-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const modeOf = (file: string) => (fs.statSync(file).mode & 0o7777).toString(8);

describe('protectDataDir', () => {
  it('makes a missing data directory 0700, and reports nothing', () => {
    const dataDir = path.join(dir, 'a', 'b');
    expect(protectDataDir(dataDir, [path.join(dataDir, 'secret.key')])).toEqual([]);
    expect(modeOf(dataDir)).toBe('700');
  });

  it('tightens a directory and files others could read, and reports each', () => {
    const key = path.join(dir, 'secret.key');
    fs.writeFileSync(key, 'k', { mode: 0o644 });
    fs.chmodSync(key, 0o644);
    fs.chmodSync(dir, 0o755);
    expect(protectDataDir(dir, [key, path.join(dir, 'missing.db')])).toEqual([
      { path: dir, was: '755', tightened: true },
      { path: key, was: '644', tightened: true },
    ]);
    expect([modeOf(dir), modeOf(key)]).toEqual(['700', '600']);
  });

  it('leaves a shared directory with the sticky bit as it is, and reports it', () => {
    fs.chmodSync(dir, 0o1777);
    expect(protectDataDir(dir, [])).toEqual([
      { path: dir, was: '1777', tightened: false, reason: 'a shared directory (sticky bit)' },
    ]);
    expect(modeOf(dir)).toBe('1777');
  });
});
