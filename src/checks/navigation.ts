/**
 * The `navigation` check: every entry of a site's navigation (Mintlify's `docs.json` and the files
 * it pulls in with `$ref`, MkDocs' `nav`) names a page that exists, every `$ref` can be followed,
 * and a page the job added is named by it. Run when the job changed one of the configuration files
 * or added or removed a page of the site; when it only removed pages, only entries naming those
 * pages are reported. A site without a navigation (MkDocs without `nav`) publishes every page.
 */
import type { CheckProblem } from '../domain/checks.js';
import { isPublished, isRepositoryDoc } from './published.js';
import { basename, isPage, type Site } from './site.js';
import type { Change } from './tree.js';

/**
 * `siteOf` tells which site a file belongs to (a site nested in another's folder keeps its own
 * pages); `hidden` holds the pages whose front matter says `hidden: true` (or `noindex: true`), out of the navigation
 * on purpose (Mintlify's hidden pages).
 */
export function checkNavigation(
  site: Site,
  changes: readonly Change[],
  siteOf: (path: string) => Site,
  hidden: ReadonlySet<string> = new Set(),
): CheckProblem[] {
  if (!site.config) return [];
  const sources = new Set(site.sources);
  const inSite = changes.filter((change) => isPage(change.path) && siteOf(change.path) === site);
  const configChanged = changes.some((change) => sources.has(change.path) && change.kind !== 'deleted');
  if (!configChanged && inSite.length === 0) return [];
  const problems: CheckProblem[] = configChanged ? [...site.problems] : [];
  if (!site.navigation) return problems;
  const removed = new Set(inSite.filter((c) => c.kind === 'deleted').map((c) => c.path));
  for (const entry of site.navigation) {
    if (entry.file) continue;
    // Without a change to the configuration, only what the job's removals broke is its to fix.
    if (!configChanged && !namesRemoved(entry.page, site, removed)) continue;
    problems.push({
      path: entry.source,
      line: entry.line,
      message: `The navigation names \`${entry.page}\`, but no such page exists${site.kind === 'mintlify' ? ` (${entry.page}.mdx or .md${site.root ? ` under ${site.root}/` : ''})` : ''}. Point the entry at the page's new path, or remove it.`,
    });
  }
  const named = new Set(site.navigation.map((entry) => entry.file));
  for (const change of inSite) {
    if (change.kind !== 'added' || named.has(change.path) || hidden.has(change.path)) continue;
    if (!isPublished(change.path, site)) continue;
    if (isRepositoryDoc(change.path) || basename(change.path).startsWith('_')) continue;
    const page = pageName(change.path, site);
    problems.push({
      path: change.path,
      line: null,
      message: `This new page is not in the site's navigation, so readers cannot find it. Add \`${page}\` to ${site.sources.length > 1 ? `the navigation (${site.sources.join(', ')})` : site.config} where it belongs.`,
    });
  }
  return problems;
}

/** How the navigation names a file: Mintlify without the extension, MkDocs relative to `docs_dir`. */
function pageName(path: string, site: Site): string {
  const inSite = site.root ? path.slice(site.root.length + 1) : path;
  return site.kind === 'mintlify' ? inSite.replace(/\.mdx?$/, '') : inSite;
}

function namesRemoved(page: string, site: Site, removed: ReadonlySet<string>): boolean {
  const base = `${site.root ? `${site.root}/` : ''}${page.replace(/^\.?\//, '')}`;
  return [base, `${base}.mdx`, `${base}.md`].some((candidate) => removed.has(candidate));
}
