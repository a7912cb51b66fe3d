// Makes the screenshots in docs/ current: runs the browser suite (which keeps a picture of each
// page it visits in test-results/screenshots/), then copies every picture the docs name
// (`screenshots/NAME.png` in README.md and docs/*.md) into docs/screenshots/. Needs a build
// (`npm run screenshots` builds first) and Chromium; fails when a named picture was not taken.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const taken = path.join(root, 'test-results', 'screenshots');
const target = path.join(root, 'docs', 'screenshots');

fs.rmSync(taken, { recursive: true, force: true });
const run = spawnSync('npx', ['vitest', 'run', 'test/browser'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, AGENTJOBS_REQUIRE_BROWSER: '1' },
});
if (run.status !== 0) {
  console.error('The browser suite failed; docs/screenshots/ is unchanged.');
  process.exit(run.status ?? 1);
}

const docs = [
  path.join(root, 'README.md'),
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(root, 'docs', name)),
];
const named = new Set();
for (const file of docs)
  for (const match of fs.readFileSync(file, 'utf8').matchAll(/screenshots\/([\w-]+\.png)/g))
    named.add(match[1]);

const missing = [...named].filter((name) => !fs.existsSync(path.join(taken, name)));
if (missing.length) {
  console.error(`The docs name pictures the browser suite did not take: ${missing.join(', ')}`);
  process.exit(1);
}
fs.mkdirSync(target, { recursive: true });
for (const name of named) fs.copyFileSync(path.join(taken, name), path.join(target, name));
const stale = fs.readdirSync(target).filter((name) => name.endsWith('.png') && !named.has(name));
for (const name of stale) fs.rmSync(path.join(target, name));
console.log(
  `docs/screenshots/: ${named.size} pictures updated${stale.length ? `, ${stale.length} no doc names removed` : ''}.`,
);
