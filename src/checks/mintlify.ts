/**
 * A Mintlify site as the framework reads it: `docs.json` (or the older `mint.json`) with every file
 * it pulls in with `$ref`. Mintlify resolves a `$ref` relative to the file that holds it, refuses
 * one that leaves the project, and fails the build on a cycle; so do we, and a reference that cannot
 * be followed is a problem of the file that holds it. Each file is parsed in the parse pool.
 */
import ignore from 'ignore';
import { type ParseBudget, parseOffThread } from '../parse/pool.js';
import {
  dirname,
  emptySite,
  isExternal,
  join,
  type NavigationEntry,
  PAGE_EXTENSIONS,
  type Site,
} from './site.js';
import type { SiteTree } from './tree.js';

/** How deep `$ref`s may nest, and how many files one site may pull in: far beyond real sites. */
const MAX_REF_DEPTH = 10;
const MAX_REF_FILES = 200;

/** A navigation entry that is an OpenAPI operation (`GET /users`, `openapi.json POST /items`), not a file. */
const OPENAPI_ENTRY = /^(\S+\s+)?(get|post|put|patch|delete|head|options|trace|webhook)\s+\S/i;

/** Reads a Mintlify site whose configuration is `config` (its folder is the site's root). */
export async function loadMintlifySite(
  config: string,
  text: string,
  tree: SiteTree,
  files: ReadonlySet<string>,
  budget: ParseBudget,
): Promise<Site> {
  const root = dirname(config);
  const site = emptySite('mintlify', config, root);
  site.excluded = await readMintignore(root, tree, files);
  const entries: NavigationEntry[] = [];
  let parsedAny = false;
  const read = async (path: string, content: string, key: string | null, chain: string[]) => {
    const parsed = await parseOffThread({ kind: 'mintlify', path, text: content, key }, budget);
    if (!parsed.ok || !parsed.value.pages) return;
    parsedAny = true;
    for (const page of parsed.value.pages) {
      if (isExternal(page) || OPENAPI_ENTRY.test(page)) continue;
      entries.push(entryOf(page, path, content, files, root));
    }
    for (const redirect of parsed.value.redirects) site.redirects.add(redirect);
    for (const { ref, key: under } of parsed.value.refs) {
      const problem = (message: string) =>
        site.problems.push({ path, line: lineOf(content, JSON.stringify(ref)), message });
      const target = join(dirname(path), ref);
      if (ref.startsWith('/') || isExternal(ref) || target === '' || target.startsWith('..')) {
        problem(
          `\`$ref\` \`${ref}\` leads outside the repository; Mintlify accepts only relative paths inside the project. Point it at a file in the repository.`,
        );
        continue;
      }
      if (chain.includes(target)) {
        problem(
          `\`$ref\` \`${ref}\` leads back to ${target}, which already includes this file: a cycle fails Mintlify's build. Remove one of the references.`,
        );
        continue;
      }
      if (chain.length >= MAX_REF_DEPTH || site.sources.length >= MAX_REF_FILES) {
        problem(
          `\`$ref\` \`${ref}\` is not followed: references nest deeper than ${MAX_REF_DEPTH} files or pull in more than ${MAX_REF_FILES}. Flatten them.`,
        );
        continue;
      }
      const referenced = files.has(target) ? await tree.read(target) : null;
      if (referenced === null) {
        problem(
          `\`$ref\` \`${ref}\` leads to no readable file (${target}). Fix the path, or create the file.`,
        );
        continue;
      }
      if (!site.sources.includes(target)) site.sources.push(target);
      await read(target, referenced, under, [...chain, target]);
    }
  };
  await read(config, text, null, [config]);
  if (parsedAny) site.navigation = entries;
  return site;
}

function entryOf(
  page: string,
  source: string,
  text: string,
  files: ReadonlySet<string>,
  root: string,
): NavigationEntry {
  return {
    page,
    source,
    file: resolveNavigationPage(files, root, page),
    // Looked up only when an entry is reported: a navigation can name thousands of pages.
    get line() {
      return lineOf(text, JSON.stringify(page));
    },
  };
}

/** The line where `needle` first appears in `text`, 1 when it does not. */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}

/**
 * A Mintlify navigation entry names `guides/setup` for `guides/setup.mdx` (or `.md`), relative to
 * the site's root whichever file names it.
 */
function resolveNavigationPage(files: ReadonlySet<string>, root: string, page: string): string | null {
  const base = join(root, page.replace(/^\/+/, ''));
  const candidates = [...PAGE_EXTENSIONS.map((extension) => `${base}${extension}`), base];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/**
 * Mintlify's `.mintignore`, beside the configuration, in `.gitignore` syntax: the files it matches
 * are not built, so they are not pages (drafts, internal notes).
 */
async function readMintignore(
  root: string,
  tree: SiteTree,
  files: ReadonlySet<string>,
): Promise<Site['excluded']> {
  const path = join(root, '.mintignore');
  if (!files.has(path)) return null;
  const rules = ignore().add((await tree.read(path)) ?? '');
  return (relativePath) => rules.ignores(relativePath);
}
