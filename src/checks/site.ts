/**
 * What a repository's documentation site looks like to the checks: where its pages live (the
 * folder of Mintlify's `docs.json`/`mint.json`, MkDocs' `docs_dir`), which pages its navigation
 * names (with the line that names each), and which page a link's path lands on.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
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

/** Reads the repository's site configurations; each is parsed once, with positions. */
export async function loadSites(tree: SiteTree): Promise<SiteMap> {
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
      sites.push(mintlifySite(path, folder, text, files));
    } else if (MKDOCS_CONFIGS.includes(name)) {
      sites.push(mkdocsSite(path, folder, (await tree.read(path)) ?? '', files));
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

function mintlifySite(config: string, root: string, text: string, files: ReadonlySet<string>): Site {
  const site: Site = { kind: 'mintlify', config, root, navigation: null, redirects: new Set() };
  // JSON.parse, not a parser that keeps positions: a navigation of thousands of pages would cost
  // hundreds of milliseconds that way. The line of an entry is looked up only when it is reported.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return site;
  }
  if (!isObject(parsed)) return site;
  const entries: NavigationEntry[] = [];
  const add = (page: string) => {
    if (isExternal(page)) return;
    const file = resolveNavigationPage(files, root, page);
    entries.push({
      page,
      file,
      get line() {
        const at = text.indexOf(JSON.stringify(page));
        return at < 0 ? 1 : text.slice(0, at).split('\n').length;
      },
    });
  };
  // Pages are the strings of every `pages` array (and a group's `root`), however deep the tabs,
  // anchors, versions, languages and groups around them are.
  const visit = (node: unknown, key: string | null) => {
    if (Array.isArray(node)) {
      for (const item of node) {
        if (key === 'pages' && typeof item === 'string') add(item);
        else visit(item, null);
      }
    } else if (isObject(node)) {
      for (const [name, value] of Object.entries(node)) visit(value, name);
    } else if (key === 'root' && typeof node === 'string') add(node);
  };
  visit(parsed.navigation, 'navigation');
  site.navigation = entries;
  if (Array.isArray(parsed.redirects)) {
    for (const redirect of parsed.redirects) {
      if (isObject(redirect) && typeof redirect.source === 'string')
        site.redirects.add(redirect.source.replace(/^\/+|\/+$/g, ''));
    }
  }
  return site;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mkdocsSite(config: string, folder: string, text: string, files: ReadonlySet<string>): Site {
  const parsed = parseWithLines(text);
  const docsDir = parsed?.document.get('docs_dir');
  const root = join(folder, typeof docsDir === 'string' ? docsDir.replace(/^\.\/|\/+$/g, '') : 'docs');
  const site: Site = { kind: 'mkdocs', config, root, navigation: null, redirects: new Set() };
  const nav = parsed?.document.get('nav', true);
  if (!parsed || !isSeq(nav)) return site;
  const entries: NavigationEntry[] = [];
  // Each item is `page.md`, `{ Title: page.md }`, `{ Title: https://… }` or `{ Section: [items] }`.
  const visit = (node: unknown) => {
    if (isSeq(node)) for (const item of node.items) visit(item);
    else if (isMap(node)) for (const pair of node.items) visit(isPair(pair) ? pair.value : null);
    else if (isScalar(node) && typeof node.value === 'string' && !isExternal(node.value)) {
      const page = node.value;
      const file = join(root, page.replace(/^\.?\//, ''));
      entries.push({
        page,
        line: parsed.lineOf(node),
        file: files.has(file) ? file : resolvePage(files, root, page),
      });
    }
  };
  visit(nav);
  site.navigation = entries;
  return site;
}

/** A Mintlify navigation entry names `guides/setup` for `guides/setup.mdx` (or `.md`). */
function resolveNavigationPage(files: ReadonlySet<string>, root: string, page: string): string | null {
  const base = join(root, page.replace(/^\/+/, ''));
  const candidates = [...PAGE_EXTENSIONS.map((extension) => `${base}${extension}`), base];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/** A YAML (or JSON, which YAML reads too) document with the line of each node; null when it has errors. */
export function parseWithLines(text: string) {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) return null;
  const lineOf = (node: Node) => (node.range ? lines.linePos(node.range[0]).line : 1);
  return { document, lineOf };
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
