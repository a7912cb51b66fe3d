/**
 * Walking the committed tree without a checkout: trees are read through cat-file and parsed here,
 * which lets the workspace follow symbolic links itself, component by component, and refuse those
 * that lead outside the repository before anything is read or written.
 */
import { posix } from 'node:path';
import type { CatFile } from './cat-file.js';
import { PathError, resolveRepoPath, WorkspaceError } from './paths.js';
import { runGit } from './run.js';

/** File modes as git writes them in tree objects. */
export const MODE = {
  tree: '40000',
  file: '100644',
  executable: '100755',
  symlink: '120000',
  submodule: '160000',
} as const;

/** One entry of a tree object. */
export interface TreeEntry {
  mode: string;
  sha: string;
}

/** Where a path really is, after symlinks, and what is there now. */
export interface Resolved {
  /** The real repository-relative path ('' for the root). */
  path: string;
  /** The committed entry at `path`, or null when HEAD has none (or the agent deleted it). */
  entry: TreeEntry | null;
  /** 'written': the agent wrote it; 'deleted': the agent deleted it; otherwise as in HEAD. */
  state: 'written' | 'deleted' | 'head' | 'absent';
}

/** The agent's changes the walk must respect: a written or deleted path is no longer a symlink. */
export interface Overlay {
  written: ReadonlyMap<string, unknown>;
  deleted: ReadonlySet<string>;
}

/** Entries `TreeReader.listFiles` reads before it leaves the listing to `git ls-tree -r`. */
const LIST_WALK_LIMIT = 2000;

/** POSIX's SYMLOOP_MAX; beyond it a chain of links is treated as a loop. */
const MAX_LINK_HOPS = 40;

/** Parses and caches tree objects (immutable, so cached by sha for the life of the workspace). */
export class TreeReader {
  private readonly trees = new Map<string, Map<string, TreeEntry>>();

  constructor(private readonly catFile: CatFile) {}

  /** Entries of tree `sha`, by name. */
  async entries(sha: string): Promise<Map<string, TreeEntry>> {
    const cached = this.trees.get(sha);
    if (cached) return cached;
    const entries = await this.parse(sha);
    this.trees.set(sha, entries);
    return entries;
  }

  /**
   * Every file path (blobs, links and submodules, as `git ls-tree -r` lists them) below tree `sha`,
   * each prefixed with `prefix/`, read through the object reader with no process of its own; or
   * null once more than `limit` entries were read. Parsing runs on the event loop, so past a few
   * thousand entries one `git ls-tree -r` (`listTree`) costs the service less; the trees of a
   * listing are not cached (a large repository has thousands), only used when they are.
   */
  async listFiles(sha: string, prefix: string, limit = LIST_WALK_LIMIT): Promise<string[] | null> {
    const budget = { left: limit };
    const walk = async (tree: string, path: string): Promise<string[] | null> => {
      const entries = this.trees.get(tree) ?? (await this.parse(tree));
      budget.left -= entries.size;
      if (budget.left < 0) return null;
      const files: string[] = [];
      const folders: Promise<string[] | null>[] = [];
      for (const [name, entry] of entries) {
        const full = path ? `${path}/${name}` : name;
        // Subtrees are asked for together, so their reads share the reader's pipe instead of waiting in turn.
        if (entry.mode === MODE.tree) folders.push(walk(entry.sha, full));
        else files.push(full);
      }
      for (const below of await Promise.all(folders)) {
        if (below === null) return null;
        files.push(...below);
      }
      return files;
    };
    return walk(sha, prefix);
  }

  /**
   * The entry at `path` below `rootTree`, of any kind, or null, as `git ls-tree <tree> -- <path>`
   * finds it: component by component, symbolic links not followed.
   */
  async entryAt(rootTree: string, path: string): Promise<TreeEntry | null> {
    let entry: TreeEntry | null = { mode: MODE.tree, sha: rootTree };
    for (const part of path.split('/')) {
      if (entry?.mode !== MODE.tree) return null;
      entry = (await this.entries(entry.sha)).get(part) ?? null;
    }
    return entry;
  }

  private async parse(sha: string): Promise<Map<string, TreeEntry>> {
    const object = await this.catFile.read(sha);
    if (!object?.content || object.type !== 'tree')
      throw new WorkspaceError('not_found', `Tree ${sha} is missing.`);
    // Raw format: `<mode> <name>\0<hash bytes>` repeated; the hash is as long as the sha (SHA-1 or SHA-256).
    const hashBytes = sha.length / 2;
    const content = object.content;
    const entries = new Map<string, TreeEntry>();
    let offset = 0;
    while (offset < content.length) {
      const space = content.indexOf(32, offset);
      const nul = content.indexOf(0, space);
      const mode = content.subarray(offset, space).toString('latin1');
      const name = content.subarray(space + 1, nul).toString('utf8');
      entries.set(name, { mode, sha: content.subarray(nul + 1, nul + 1 + hashBytes).toString('hex') });
      offset = nul + 1 + hashBytes;
    }
    return entries;
  }

  /**
   * Finds where `path` (already checked by `resolveRepoPath`) really is under `rootTree`, following
   * symbolic links in every component, and in the last one too when `followFinal` (reads and
   * writes follow it; delete and move act on the link itself, like `rm` and `mv`).
   *
   * @throws PathError for a link leading outside the repository or into `.git`;
   * WorkspaceError when a component is a file, or for a loop of links.
   */
  async resolve(rootTree: string, path: string, overlay: Overlay, followFinal: boolean): Promise<Resolved> {
    let parts = path === '' ? [] : path.split('/');
    let hops = 0;
    walk: for (;;) {
      let tree: string | null = rootTree;
      let entry: TreeEntry | null = null;
      for (let index = 0; index < parts.length; index++) {
        const name = parts[index] as string;
        const current = parts.slice(0, index + 1).join('/');
        const last = index === parts.length - 1;
        entry =
          tree !== null && !overlay.deleted.has(current)
            ? ((await this.entries(tree)).get(name) ?? null)
            : null;
        if (overlay.written.has(current)) {
          if (!last) throw notAFolder(current);
          return { path: current, entry, state: 'written' };
        }
        if (entry === null) {
          tree = null;
          continue;
        }
        if (entry.mode === MODE.symlink && (!last || followFinal)) {
          if (++hops > MAX_LINK_HOPS)
            throw new WorkspaceError('unsupported', `Too many levels of symbolic links at "${current}".`);
          const target = await this.catFile.read(entry.sha, 4096);
          const rest = parts.slice(index + 1);
          parts = [...followLink(current, target?.content?.toString('utf8') ?? ''), ...rest];
          continue walk;
        }
        if (entry.mode === MODE.tree) tree = entry.sha;
        else if (!last) throw notAFolder(current);
        else tree = null;
      }
      const real = parts.join('/');
      if (overlay.deleted.has(real)) return { path: real, entry: null, state: 'deleted' };
      if (parts.length === 0) return { path: '', entry: { mode: MODE.tree, sha: rootTree }, state: 'head' };
      return { path: real, entry, state: entry ? 'head' : 'absent' };
    }
  }
}

/** Every file path under `path` ('' for all) in `commit`, as `git ls-tree -r` lists them. */
export async function listTree(cwd: string, commit: string, path: string): Promise<string[]> {
  // Literal pathspecs: a folder named `*` or `:(glob)x` is a name, not a pattern.
  const args = ['--literal-pathspecs', 'ls-tree', '-r', '--name-only', '-z', commit, '--'];
  const { stdout } = await runGit(path ? [...args, path] : args, { cwd });
  return stdout.toString('utf8').split('\0').filter(Boolean);
}

/** The components of where the link at `linkPath` points, refused when that is outside or in `.git`. */
function followLink(linkPath: string, target: string): string[] {
  const outside = new PathError(
    `"${linkPath}" is a symbolic link to "${target}", which is outside the repository; it cannot be followed.`,
    'outside_repository',
  );
  if (target === '' || target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target)) throw outside;
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target));
  if (joined === '..' || joined.startsWith('../')) throw outside;
  let real: string;
  try {
    real = resolveRepoPath(joined, { allowRoot: true });
  } catch {
    throw outside;
  }
  return real === '' ? [] : real.split('/');
}

function notAFolder(path: string): WorkspaceError {
  return new WorkspaceError('not_a_directory', `"${path}" is a file, not a folder.`);
}
