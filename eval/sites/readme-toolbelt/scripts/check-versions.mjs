// The release check: every package's README states the version its package.json has, on a
// line `Current version: x.y.z`, so the docs on npm never name a release that is not the one
// they ship with. Exit code 1, with one line per README, when any does not.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const problems = [];
for (const name of readdirSync('packages').sort()) {
  const dir = join('packages', name);
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const stated = readme.match(/^Current version: (\S+)$/m)?.[1];
  if (stated === undefined) problems.push(`${dir}/README.md: no "Current version: ${version}" line`);
  else if (stated !== version)
    problems.push(`${dir}/README.md: states version ${stated}, but package.json is at ${version}`);
}
for (const problem of problems) console.log(problem);
console.log(problems.length ? `${problems.length} problem(s)` : 'All package READMEs state their version.');
process.exit(problems.length ? 1 : 0);
