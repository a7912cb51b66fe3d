/**
 * What a repository's documentation site looks like to the checks: where its pages live (the
 * folder of Mintlify's `docs.json`/`mint.json`, MkDocs' `docs_dir`), which pages its navigation
 * names (with the line that names each), and which page a link's path lands on.
 */
import { type ParseBudget, parseOffThread } from '../parse/pool.js';
import type { MintlifyConfig, MkdocsConfig } from './site-config.js';
import type { SiteTree } from './tree.js';

/** Extensions of the files that are pages. */
export const PAGE_EXTENSIONS = ['.mdx', '.md'] as const;

export const isPage = (path: string) => PAGE_EXTENSIONS.some((extension) => path.endsWith(extension));

const MINTLIFY_CONFIGS = ['docs.json', 'mint.json'];
const MKDOCS_CONFIGS = ['mkdocs.yml', 'mkdocs.yaml'];

/** One entry of a site's navigation: the page as written, the line, and the file it names if any. */
export interface NavigationEntry {
  page: string;
  line: number;
  /** The file the entry names, or null when there is none. */
  file: string | null;
}

/** A documentation site in the repository. */
export interface Site {
  kind: 'mintlify' | 'mkdocs' | 'plain';
  /** Its configuration file, or null for a repository without one. */
  config: string | null;
  /** The folder its pages are in, '' for the repository root. */
  root: string;
  /**
   * Its navigation's entries; null when the site has none (a plain repository, MkDocs without
   * `nav`, which lists every page by itself) or when the configuration does not parse.
   */
  navigation: NavigationEntry[] | null;
  /** Paths other pages may link to that are not files: Mintlify's redirect sources. */
  redirects: Set<string>;
}

/** The sites of a repository and its files, read once per check run. */
export interface SiteMap {
  files: ReadonlySet<string>;
  sites: Site[];
  /** The site a file belongs to: the one whose root holds it most closely. */
  siteOf(path: string): Site;
}

/**
 * Reads the repository's site configurations, each parsed once in the parse pool. One that does
 * not parse in budget is a site without navigation (the syntax check reports the file).
 */
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
      const read = await parseOffThread({ kind: 'mintlify', path, text }, budget);
      sites.push(mintlifySite(path, folder, text, files, read.ok ? read.value : null));
    } else if (MKDOCS_CONFIGS.includes(name)) {
      const text = (await tree.read(path)) ?? '';
      const read = await parseOffThread({ kind: 'mkdocs', path, text }, budget);
      sites.push(mkdocsSite(path, folder, files, read.ok ? read.value : null));
    }
  }
  // Deepest roots first, so `siteOf` finds the closest.
  sites.sort((a, b) => b.root.length - a.root.length);
  const plain: Site = { kind: 'plain', config: null, root: '', navigation: null, redirects: new Set() };
  return {
    files,
    sites,
    siteOf: (path) => sites.find((site) => isUnder(path, site.root)) ?? plain,
  };
}

/**
 * The file a site-relative path (`guides/setup`, `guides/`, `guides/setup.md`) lands on, the way
 * the site's server finds it: the file itself, with a page extension added, or the folder's index
 * page; null when none exists.
 */
export function resolvePage(files: ReadonlySet<string>, root: string, path: string): string | null {
  const base = join(root, path.replace(/\/+$/, ''));
  const candidates = [base, ...PAGE_EXTENSIONS.map((extension) => `${base}${extension}`)];
  for (const index of ['index', 'README']) {
    for (const extension of PAGE_EXTENSIONS) candidates.push(join(base, `${index}${extension}`));
  }
  // MkDocs writes `guide.md` as `guide/` (or `guide.html`); links to those forms are common.
  if (base.endsWith('.html')) candidates.push(...PAGE_EXTENSIONS.map((e) => `${base.slice(0, -5)}${e}`));
  return candidates.find((candidate) => candidate !== '' && files.has(candidate)) ?? null;
}

function mintlifySite(
  config: string,
  root: string,
  text: string,
  files: ReadonlySet<string>,
  read: MintlifyConfig | null,
): Site {
  const site: Site = { kind: 'mintlify', config, root, navigation: null, redirects: new Set() };
  if (!read?.pages) return site;
  site.navigation = read.pages
    .filter((page) => !isExternal(page))
    .map((page) => ({
      page,
      file: resolveNavigationPage(files, root, page),
      // Looked up only when an entry is reported: a navigation can name thousands of pages.
      get line() {
        const at = text.indexOf(JSON.stringify(page));
        return at < 0 ? 1 : text.slice(0, at).split('\n').length;
      },
    }));
  site.redirects = new Set(read.redirects);
  return site;
}

function mkdocsSite(
  config: string,
  folder: string,
  files: ReadonlySet<string>,
  read: MkdocsConfig | null,
): Site {
  const docsDir = read?.docsDir;
  const root = join(folder, typeof docsDir === 'string' ? docsDir.replace(/^\.\/|\/+$/g, '') : 'docs');
  const site: Site = { kind: 'mkdocs', config, root, navigation: null, redirects: new Set() };
  if (!read?.navigation) return site;
  site.navigation = read.navigation
    .filter((entry) => !isExternal(entry.page))
    .map(({ page, line }) => {
      const file = join(root, page.replace(/^\.?\//, ''));
      return { page, line, file: files.has(file) ? file : resolvePage(files, root, page) };
    });
  return site;
}

/** A Mintlify navigation entry names `guides/setup` for `guides/setup.mdx` (or `.md`). */
function resolveNavigationPage(files: ReadonlySet<string>, root: string, page: string): string | null {
  const base = join(root, page.replace(/^\/+/, ''));
  const candidates = [...PAGE_EXTENSIONS.map((extension) => `${base}${extension}`), base];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative (`//host`): not checked. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

export function isUnder(path: string, folder: string): boolean {
  return folder === '' || path.startsWith(`${folder}/`);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Joins and normalises repository paths (`a/b/../c` → `a/c`); a path that climbs out of the root keeps its `..`. */
export function join(...parts: string[]): string {
  const out: string[] = [];
  for (const segment of parts.join('/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else out.push(segment);
  }
  return out.join('/');
}
