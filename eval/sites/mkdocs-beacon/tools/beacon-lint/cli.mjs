#!/usr/bin/env node
// The Beacon docs' lint: every fenced code block under docs/ names its language (```yaml,
// ```bash, ```text, …), so the site highlights it and readers know what to type where. Prints
// `path:line` for each block that does not, and exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function* pages(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* pages(path);
    else if (entry.name.endsWith('.md')) yield path;
  }
}

const problems = [];
for (const path of [...pages('docs')].sort()) {
  let open = false;
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const fence = text.match(/^\s*(```+|~~~+)\s*(\S*)/);
      if (!fence) return;
      if (!open && !fence[2]) problems.push(`${path}:${index + 1}: a code block without a language`);
      open = !open;
    });
}
for (const problem of problems) console.log(problem);
console.log(problems.length ? `beacon-lint: ${problems.length} problem(s).` : 'beacon-lint: no problems.');
process.exit(problems.length ? 1 : 0);
