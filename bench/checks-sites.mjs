// How often the built-in checks cry wolf on real sites (issue 28).
//
//   npm run build --silent && node bench/checks-sites.mjs FOLDER [FOLDER…]
//
// Runs the built-in checks on each folder (a checkout of a real documentation repository) twice: as
// if the job had modified every page, and as if it had added every page, changing every site
// configuration both times; prints, per check, the problems found per 1,000 pages, with the first
// few messages of each kind for a reader to judge. Modified is the measure of false positives: the
// site is as its authors publish it. Added holds every existing page to a new page's rules too (a
// place in the navigation), which the authors may leave out on purpose (Mintlify's hidden pages).
// The markdown check is left out: compiling every page costs minutes and its findings are real.
import fs from 'node:fs';
import path from 'node:path';
import { runBuiltInChecks } from '../dist/checks/built-in.js';
import { directoryTree } from '../dist/checks/tree.js';
import { closeParsePool } from '../dist/parse/pool.js';
import { printTable } from './table.mjs';

const isPage = (file) => /\.mdx?$/.test(file);
const isConfig = (file) => /(^|\/)(docs\.json|mint\.json|mkdocs\.ya?ml)$/.test(file);
const rows = [];
for (const folder of process.argv.slice(2)) {
  if (!fs.statSync(folder).isDirectory()) throw new Error(`${folder} is not a folder`);
  const tree = directoryTree(folder);
  const files = await tree.files();
  const pages = files.filter(isPage).length;
  for (const pagesAs of ['modified', 'added']) {
    const changes = [
      ...files.filter(isPage).map((file) => ({ path: file, kind: pagesAs })),
      ...files.filter(isConfig).map((file) => ({ path: file, kind: 'modified' })),
    ];
    const checks = ['frontmatter', 'links', 'navigation'];
    const results = await runBuiltInChecks({ tree, changes, checks, budget: { runMs: 30 * 60_000 } });
    for (const result of results) {
      const perThousand = ((result.problems.length * 1000) / Math.max(pages, 1)).toFixed(1);
      rows.push([
        path.basename(folder),
        String(pages),
        pagesAs,
        result.name,
        String(result.problems.length),
        perThousand,
      ]);
      const kinds = new Map();
      for (const problem of result.problems) {
        const kind = problem.message.replace(/`[^`]*`/g, '`…`').slice(0, 70);
        if (!kinds.has(kind)) kinds.set(kind, []);
        kinds.get(kind).push(problem.path);
      }
      for (const [kind, paths] of kinds)
        console.error(
          `${path.basename(folder)} ${pagesAs} ${result.name} ×${paths.length} ${kind} e.g. ${paths.slice(0, 3).join(', ')}`,
        );
    }
  }
}
await closeParsePool();
printTable(['site', 'pages', 'pages as', 'check', 'problems', 'per 1,000 pages'], rows);
