/**
 * Links in an mdBook (a folder with `book.toml`, its pages in `src/`): mdBook writes
 * `src/a/b.md` as `a/b.html`, so pages link to each other's `.html`. A book nested in another's
 * folder is published under the outer book at the same place (`2018-edition/` of rust-lang/book
 * is served at `book/2018-edition/`), so a link may climb out of one book into the one around it.
 * Only the default `src` folder is known: `book.toml` is not read.
 */
import { dirname, join, PAGE_EXTENSIONS } from './site.js';

const SOURCE_FOLDER = 'src';

/**
 * The source file a relative `.html` link from `from` leads to in the published books; `outside`
 * when it climbs out of the outermost book, to what the host serves beside it (the Rust book links
 * `../std/index.html`), which the repository cannot tell; null when `from` is in no book or the link
 * leads to no page of one.
 */
export function resolveBookLink(
  files: ReadonlySet<string>,
  from: string,
  link: string,
): string | 'outside' | null {
  if (!/\.html$/.test(link)) return null;
  const published = publishedPath(files, from);
  if (published === null) return null;
  const target = join(dirname(published), link);
  if (target.startsWith('..')) return 'outside';
  // The deepest book whose published folder holds the target serves it.
  for (let book = dirname(target); ; book = dirname(book)) {
    if (isBook(files, book) && (book === '' || target.startsWith(`${book}/`))) {
      const inBook = book === '' ? target : target.slice(book.length + 1);
      const source = join(book, SOURCE_FOLDER, inBook.slice(0, -'.html'.length));
      const candidates = PAGE_EXTENSIONS.map((extension) => `${source}${extension}`);
      // mdBook writes a book's first chapter (or its README) as `index.html`.
      if (inBook === 'index.html') {
        const sources = join(book, SOURCE_FOLDER);
        candidates.push(...['README.md', 'SUMMARY.md'].map((name) => join(sources, name)));
      }
      return candidates.find((candidate) => files.has(candidate)) ?? null;
    }
    if (book === '') return null;
  }
}

/** Where mdBook publishes `path` (`book/src/a.md` → `book/a.html`), or null when it is in no book. */
function publishedPath(files: ReadonlySet<string>, path: string): string | null {
  for (let folder = dirname(path); folder !== ''; folder = dirname(folder)) {
    const book = dirname(folder);
    if (folder.endsWith(SOURCE_FOLDER) && join(book, SOURCE_FOLDER) === folder && isBook(files, book))
      return join(book, path.slice(folder.length + 1).replace(/\.mdx?$/, '.html'));
  }
  return null;
}

const isBook = (files: ReadonlySet<string>, folder: string) => files.has(join(folder, 'book.toml'));
