// `npm ci` runs this (the `prepare` script): it builds the service, so that `npm start` and
// `agentjobs` work straight after an install. An install without dev dependencies
// (`npm ci --omit=dev`, a production image) has no TypeScript to build with; it must not fail for
// that, and says what to do when there is nothing built yet.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
try {
  createRequire(new URL('package.json', root)).resolve('typescript/bin/tsc');
} catch {
  if (!fs.existsSync(new URL('dist/cli/main.js', root))) {
    console.warn(
      'agentjobs is not built, and TypeScript (a dev dependency) is not installed to build it. ' +
        'For an install without dev dependencies, build first and prune after: ' +
        'npm ci && npm run build && npm prune --omit=dev',
    );
  }
  process.exit(0);
}
// The build is package.json's own `build` script, so that what it runs is written in one place.
// npm names itself in npm_execpath for the scripts it runs; run by hand, this finds npm on the PATH.
const npm = process.env.npm_execpath;
const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
execFileSync(command, [...args, 'run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
