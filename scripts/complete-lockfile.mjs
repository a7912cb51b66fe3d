// Adds Biome's other-platform packages to package-lock.json.
//
// The registry our machines reach serves only Biome's Linux glibc builds, so `npm install` here
// writes a lock without the other platforms' optional packages, and `npm ci` then refuses it
// ("Missing: @biomejs/cli-darwin-arm64@ from lock file"). Run this after any `npm install` that
// rewrites the lock. npm never installs these packages on a platform they are not for.
import fs from 'node:fs';

const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const biome = lock.packages['node_modules/@biomejs/biome'];
if (!biome) throw new Error('@biomejs/biome is not in package-lock.json');
const platforms = {
  'android-arm64': ['android', 'arm64'],
  'android-x64': ['android', 'x64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'darwin-x64': ['darwin', 'x64'],
  'linux-arm64': ['linux', 'arm64', 'glibc'],
  'linux-x64': ['linux', 'x64', 'glibc'],
  'linux-arm64-musl': ['linux', 'arm64', 'musl'],
  'linux-x64-musl': ['linux', 'x64', 'musl'],
  'win32-arm64': ['win32', 'arm64'],
  'win32-x64': ['win32', 'x64'],
};
let added = 0;
for (const [name, [os, cpu, libc]] of Object.entries(platforms)) {
  const key = `node_modules/@biomejs/cli-${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = {
    version: biome.version,
    cpu: [cpu],
    dev: true,
    ...(libc ? { libc: [libc] } : {}),
    license: biome.license,
    optional: true,
    os: [os],
    engines: biome.engines,
  };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);
fs.writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added
    ? `Added ${added} platform entries for @biomejs/biome ${biome.version}.`
    : 'The lock file is complete.',
);
