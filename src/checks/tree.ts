/**
 * What the built-in checks read: a small interface over a repository's files, so that the same
 * checks run on a job's lazy git workspace (workspace-tree.ts) and on a plain folder (tests, the
 * evaluation suite). Paths are repository-relative with `/`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** A repository's files as the checks see them. */
export interface SiteTree {
  /** Every file path, sorted. */
  files(): Promise<string[]>;
  /** A text file's content; null when it is missing, binary or too large to check. */
  read(path: string): Promise<string | null>;
  /**
   * Files whose text contains `text` (a fixed string), among those whose path passes `include`:
   * how the checks find the pages that point at a moved or deleted file without reading them all.
   */
  filesContaining(text: string, include: (path: string) => boolean): Promise<string[]>;
}

/** How a path changed against the job's base. */
export type ChangeKind = 'added' | 'modified' | 'deleted';

/** One path the job added, changed or deleted (a move is a deletion and an addition). */
export interface Change {
  path: string;
  kind: ChangeKind;
}

/** Files larger than this are not checked: no page is this large, and parsing one would take long. */
export const MAX_CHECKED_BYTES = 2 * 1024 * 1024;

/** A NUL in the first 8 KiB means binary, as git decides. */
export function isBinaryText(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/** Folders never walked in a plain folder: version control and installed packages. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** A `SiteTree` over a plain folder: its files are listed once, read on demand. */
export function directoryTree(root: string): SiteTree {
  let listed: Promise<string[]> | null = null;
  const read = async (path: string): Promise<string | null> => {
    try {
      const content = await readFile(join(root, path));
      if (content.length > MAX_CHECKED_BYTES || isBinaryText(content)) return null;
      return content.toString('utf8');
    } catch {
      return null;
    }
  };
  return {
    files: () => {
      listed ??= walk(root, root).then((files) => files.sort());
      return listed;
    },
    read,
    async filesContaining(text, include) {
      const found: string[] = [];
      for (const file of await this.files()) {
        if (!include(file)) continue;
        if ((await read(file))?.includes(text)) found.push(file);
      }
      return found;
    },
  };
}

async function walk(root: string, folder: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) files.push(...(await walk(root, path)));
    } else if (entry.isFile()) files.push(relative(root, path).split(sep).join('/'));
  }
  return files;
}
