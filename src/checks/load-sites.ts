/**
 * Finds a repository's documentation sites and reads each configuration once, in the parse pool.
 * One that does not parse in budget is a site without navigation (the syntax check reports it).
 */
import type { ParseBudget } from '../parse/pool.js';
import { parseOffThread } from '../parse/pool.js';
import { loadMintlifySite } from './mintlify.js';
import {
  basename,
  dirname,
  emptySite,
  isUnder,
  join,
  MINTLIFY_CONFIGS,
  MKDOCS_CONFIGS,
  mkdocsSite,
  type Site,
} from './site.js';
import type { SiteTree } from './tree.js';

/** The sites of a repository and its files, read once per check run. */
export interface SiteMap {
  files: ReadonlySet<string>;
  sites: Site[];
  /** The site a file belongs to: the one whose root holds it most closely. */
  siteOf(path: string): Site;
}

export async function loadSites(tree: SiteTree, budget: ParseBudget): Promise<SiteMap> {
  const list = await tree.files();
  const files = new Set(list);
  const sites: Site[] = [];
  for (const path of list) {
    const name = basename(path);
    const folder = dirname(path);
    if (MINTLIFY_CONFIGS.includes(name)) {
      // docs.json is a common name; only one with navigation (or Mintlify's schema) is a site.
      const text = await tree.read(path);
      if (!text || !/"(navigation|\$schema|theme)"/.test(text)) continue;
      // docs.json replaced mint.json; a repository that has both is read through docs.json.
      if (name === 'mint.json' && files.has(join(folder, 'docs.json'))) continue;
      sites.push(await loadMintlifySite(path, text, tree, files, budget));
    } else if (MKDOCS_CONFIGS.includes(name)) {
      const text = (await tree.read(path)) ?? '';
      const read = await parseOffThread({ kind: 'mkdocs', path, text }, budget);
      sites.push(mkdocsSite(path, folder, files, read.ok ? read.value : null));
    }
  }
  // Deepest roots first, so `siteOf` finds the closest.
  sites.sort((a, b) => b.root.length - a.root.length);
  const plain = emptySite('plain', null, '');
  return {
    files,
    sites,
    siteOf: (path) => sites.find((site) => isUnder(path, site.root)) ?? plain,
  };
}
