import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: 'pipe', timeout: 240_000 });

// The package as someone outside this checkout installs it: `npm pack` here (dist/ is built by
// `npm test` first), then `npm install <tarball>` in a folder of its own. Install scripts are
// skipped (better-sqlite3 would compile for a minute); the CLI's help and the client need none.
describe('the packed tarball, installed in another folder', () => {
  let dir: string;
  let app: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-pack-'));
    const tarball = npm(['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], process.cwd())
      .trim()
      .split('\n')
      .at(-1) as string;
    app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    npm(
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(dir, tarball)],
      app,
    );
  }, 300_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('puts the agentjobs command on the folder’s PATH, and it runs', () => {
    const bin = path.join(app, 'node_modules/.bin/agentjobs');
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    for (const command of ['serve', 'quickstart', 'project', 'job', 'eval']) expect(help).toContain(command);
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    expect(version).toBe(JSON.parse(fs.readFileSync('package.json', 'utf8')).version);
  });

  it('gives the typed client as agentjobs/client', () => {
    const script =
      "const c = await import('agentjobs/client'); console.log(typeof c.createClient, typeof c.verifyWebhook)";
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(printed.trim()).toBe('function function');
    expect(fs.existsSync(path.join(app, 'node_modules/agentjobs/dist/client/index.d.ts'))).toBe(true);
  });

  it('carries no tests, sources or local state', () => {
    const packed = path.join(app, 'node_modules/agentjobs');
    for (const absent of ['src', 'test', '.agentjobs', 'node_modules/.cache'])
      expect(fs.existsSync(path.join(packed, absent)), absent).toBe(false);
    expect(fs.readdirSync(path.join(packed, 'dist')).some((file) => file.endsWith('.test.js'))).toBe(false);
  });
});
