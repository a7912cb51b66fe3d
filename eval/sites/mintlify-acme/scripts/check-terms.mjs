// The docs' terminology check, a small Vale: every page (.mdx) uses the house terms. Prints
// `path:line: use "x", not "y"` for each use of a term on the list, and exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TERMS = [
  [/\be-mail\b/i, 'email', 'e-mail'],
  [/\bwhite-?list(ed|s|ing)?\b/i, 'allowlist', 'whitelist'],
  [/\bblack-?list(ed|s|ing)?\b/i, 'denylist', 'blacklist'],
  [/\blogin to\b/i, 'log in to', 'login to'],
];

function* pages(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* pages(path);
    else if (entry.name.endsWith('.mdx')) yield path;
  }
}

let count = 0;
for (const path of [...pages('.')].sort()) {
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      for (const [pattern, use, not] of TERMS)
        if (pattern.test(text)) {
          count += 1;
          console.log(`${path}:${index + 1}: use "${use}", not "${not}"`);
        }
    });
}
console.log(count ? `${count} term(s) to change.` : 'The pages use the house terms.');
process.exit(count ? 1 : 0);
