/**
 * A site configuration's text read for what the checks need: the pages its navigation names and
 * Mintlify's redirects. Runs in the parse worker (see src/parse/pool.ts), so the results are plain
 * data; site.ts resolves them against the repository's files.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { jsonNesting, MAX_NESTING, yamlNesting } from '../parse/nesting.js';

/**
 * What a Mintlify `docs.json`/`mint.json` (or a file one of them pulls in with `$ref`) names;
 * `pages` is null when it does not parse.
 */
export interface MintlifyConfig {
  pages: string[] | null;
  /** Redirect sources without their leading and trailing slashes. */
  redirects: string[];
  /**
   * The `$ref`s met, as written (site.ts resolves them relative to this file), each with the key it
   * stands under: a file referenced under `pages` is a list of pages, under `redirects` of redirects.
   */
  refs: Array<{ ref: string; key: string | null }>;
}

/** What an `mkdocs.yml` names; `navigation` is null without `nav` or when it does not parse. */
export interface MkdocsConfig {
  docsDir: string | null;
  navigation: Array<{ page: string; line: number }> | null;
}

/**
 * Reads a Mintlify configuration; `key` is null for `docs.json` itself, and for a file it pulls in,
 * the key the `$ref` stood under (`navigation`, `pages`, `redirects`, or none for an array item).
 */
export function readMintlifyConfig(text: string, key: string | null = null): MintlifyConfig {
  const config: MintlifyConfig = { pages: null, redirects: [], refs: [] };
  // Nested past the limit is not a configuration Mintlify reads; the syntax check says so.
  if (jsonNesting(text) > MAX_NESTING) return config;
  // JSON.parse, not a parser that keeps positions: a navigation of thousands of pages would cost
  // hundreds of milliseconds that way. The line of an entry is looked up only when it is reported.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return config;
  }
  const pages: string[] = [];
  // Pages are the strings of every `pages` array (and a group's `root`), however deep the
  // languages, versions, tabs, anchors, dropdowns, products and groups around them are.
  const visit = (node: unknown, key: string | null) => {
    if (Array.isArray(node)) {
      for (const item of node) {
        if (key === 'pages' && typeof item === 'string') pages.push(item);
        else visit(item, key === 'redirects' ? null : key);
      }
    } else if (isObject(node)) {
      if (typeof node.$ref === 'string') config.refs.push({ ref: node.$ref, key });
      for (const [name, value] of Object.entries(node)) if (name !== '$ref') visit(value, name);
    } else if (key === 'root' && typeof node === 'string') pages.push(node);
  };
  if (key === null) {
    if (!isObject(parsed)) return config;
    visit(parsed.navigation, 'navigation');
    visit(parsed.redirects, 'redirects');
  } else if (key === 'redirects') visit(parsed, 'redirects');
  else visit(parsed, key);
  config.pages = pages;
  const redirects = key === null && isObject(parsed) ? parsed.redirects : key === 'redirects' ? parsed : null;
  if (Array.isArray(redirects)) {
    for (const redirect of redirects) {
      if (isObject(redirect) && typeof redirect.source === 'string')
        config.redirects.push(redirect.source.replace(/^\/+|\/+$/g, ''));
    }
  }
  return config;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function readMkdocsConfig(text: string): MkdocsConfig {
  const config: MkdocsConfig = { docsDir: null, navigation: null };
  if (yamlNesting(text) > MAX_NESTING) return config;
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) return config;
  const docsDir = document.get('docs_dir');
  if (typeof docsDir === 'string') config.docsDir = docsDir;
  const nav = document.get('nav', true);
  if (!isSeq(nav)) return config;
  const navigation: MkdocsConfig['navigation'] & object = [];
  // Each item is `page.md`, `{ Title: page.md }`, `{ Title: https://… }` or `{ Section: [items] }`.
  const visit = (node: unknown) => {
    if (isSeq(node)) for (const item of node.items) visit(item);
    else if (isMap(node)) for (const pair of node.items) visit(isPair(pair) ? pair.value : null);
    else if (isScalar(node) && typeof node.value === 'string')
      navigation.push({ page: node.value, line: node.range ? lines.linePos(node.range[0]).line : 1 });
  };
  visit(nav);
  config.navigation = navigation;
  return config;
}
