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

/**
 * How deep `$ref`s may nest, how many files one site may pull in, and how many times in all files
 * may be pulled in (Mintlify copies a file in at each reference, so references repeated on every
 * level multiply): far beyond real sites.
 */
const MAX_REF_DEPTH = 10;
const MAX_REF_FILES = 200;
const MAX_REF_INCLUSIONS = 1_000;

/** A navigation entry that is an OpenAPI operation (`GET /users`, `openapi.json POST /items`), not a file. */
const OPENAPI_ENTRY = /^(\S+\s+)?(get|post|put|patch|delete|head|options|trace|webhook)\s+\S/i;

/** A file referenced more than once from another: what multiplies a site's inclusions. */
interface FanOut {
  from: string;
  to: string;
  times: number;
  /** How many files down from the configuration `from` is. */
  depth: number;
}

/**
 * Reads a Mintlify site whose configuration is `config` (its folder is the site's root). Each file
 * is read and parsed once, and its entries taken once, however often it is referenced: the pages a
 * repeated reference brings are the same pages. How often Mintlify would copy files in is counted
 * all the same, and past `MAX_REF_INCLUSIONS` that is a problem naming the references that repeat.
 */
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
  /** Inclusions below each file read (by path and key), so a repeated reference costs a lookup. */
  const below = new Map<string, number>();
  const texts = new Map<string, Promise<string | null>>([[config, Promise.resolve(text)]]);
  const fanOuts: FanOut[] = [];
  const readText = (path: string) => {
    let read = texts.get(path);
    if (!read) {
      read = tree.read(path);
      texts.set(path, read);
    }
    return read;
  };
  /** Reads `path` (under `key`) and what it references; answers how many files it pulls in. */
  const read = async (path: string, content: string, key: string | null, chain: string[]) => {
    const parsed = await parseOffThread({ kind: 'mintlify', path, text: content, key }, budget);
    if (!parsed.ok || !parsed.value.pages) return 0;
    parsedAny = true;
    for (const page of parsed.value.pages) {
      if (isExternal(page) || OPENAPI_ENTRY.test(page)) continue;
      entries.push(entryOf(page, path, content, files, root));
    }
    for (const redirect of parsed.value.redirects) site.redirects.add(redirect);
    let inclusions = 0;
    const times = new Map<string, number>();
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
      const node = `${target}\0${under ?? ''}`;
      const known = below.get(node);
      if (known !== undefined) {
        inclusions += 1 + known;
        times.set(target, (times.get(target) ?? 0) + 1);
        continue;
      }
      if (chain.length >= MAX_REF_DEPTH || site.sources.length >= MAX_REF_FILES) {
        problem(
          `\`$ref\` \`${ref}\` is not followed: references nest deeper than ${MAX_REF_DEPTH} files or pull in more than ${MAX_REF_FILES}. Flatten them.`,
        );
        continue;
      }
      const referenced = files.has(target) ? await readText(target) : null;
      if (referenced === null) {
        problem(
          `\`$ref\` \`${ref}\` leads to no readable file (${target}). Fix the path, or create the file.`,
        );
        continue;
      }
      if (!site.sources.includes(target)) site.sources.push(target);
      const count = await read(target, referenced, under, [...chain, target]);
      below.set(node, count);
      inclusions += 1 + count;
      times.set(target, (times.get(target) ?? 0) + 1);
    }
    for (const [to, count] of times)
      if (count > 1) fanOuts.push({ from: path, to, times: count, depth: chain.length });
    return inclusions;
  };
  const inclusions = await read(config, text, null, [config]);
  if (inclusions > MAX_REF_INCLUSIONS)
    site.problems.push(tooManyInclusions(config, text, inclusions, fanOuts));
  if (parsedAny) site.navigation = entries;
  return site;
}

/** The problem of a site whose references multiply, naming the references that repeat most. */
function tooManyInclusions(config: string, text: string, inclusions: number, fanOuts: FanOut[]) {
  const worst = [...fanOuts].sort((a, b) => b.times - a.times || a.depth - b.depth);
  const named = worst
    .slice(0, 3)
    .map((fan) => `${fan.to} is referenced ${fan.times} times in ${fan.from}`)
    .join('; ');
  const more = worst.length > 3 ? `; and ${worst.length - 3} more files are referenced more than once` : '';
  const total = inclusions.toLocaleString('en-US', { maximumFractionDigits: 0 });
  return {
    path: config,
    line: lineOf(text, '"$ref"'),
    message: `\`$ref\`s make Mintlify copy files into the navigation ${total} times (at most ${MAX_REF_INCLUSIONS.toLocaleString('en-US')}), since every reference copies its file again and repeats multiply level by level: ${named || 'no file is referenced twice from one file'}${more}. Reference each file once, or name its pages directly.`,
  };
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
