/**
 * Turning the agent's changes into a commit without an index: the trees along the changed paths
 * are rebuilt from HEAD's trees (read through the mirror's object reader) with the new blobs, and
 * written by one `git mktree --batch`; every other tree is HEAD's, by id. So a commit costs work in
 * proportion to the folders changed, not to the files in the repository (as `read-tree` +
 * `update-index` + `write-tree` over a full index did): `mktree`, `commit-tree` and `update-ref`
 * (and a check of the written paths in an index of their own, unless the caller made it).
 *
 * Entry names are kept as the bytes HEAD's trees hold (keys are those bytes as latin1, one
 * character per byte), so an untouched entry is written back exactly, whatever its encoding.
 */
import type { CatFile } from './cat-file.js';
import { GitError, runGit, spawnGit } from './run.js';
import { MODE } from './tree.js';
import { type WrittenFile, withScratchIndex } from './worktree.js';

/** What `commitChanges` commits: the worktree's HEAD plus exactly these paths. */
export interface Changes {
  dir: string;
  head: string;
  headTree: string;
  /** Written paths and their blobs. */
  written: ReadonlyMap<string, WrittenFile>;
  deleted: ReadonlySet<string>;
  message: string;
  authorName: string;
  authorEmail: string;
  /** Reads HEAD's trees (the mirror's reader, which the worktree shares). */
  objects: CatFile;
  /** Every written path already passed `assertCommittable` (the workspace asks git at each write). */
  pathsChecked?: boolean;
  /** Stops the commit: every git it started is killed, and the branch does not move. */
  signal?: AbortSignal | undefined;
}

/** One entry of a tree: the name's bytes as latin1 → mode and object id. */
type Entries = Map<string, { mode: string; sha: string }>;

/** The changes below one folder: a file written here, a deletion here, or changes further down. */
interface Node {
  file?: WrittenFile;
  deleted?: boolean;
  children: Map<string, Node>;
}

/**
 * Commits the changes on the worktree's branch. Returns the commit and its tree, or null when the
 * tree equals HEAD's. The branch moves only if it is still at `head` (`update-ref`
 * compare-and-swap), so a commit never silently replaces someone else's; and no hook or signing
 * configuration runs, as it would with `git commit`.
 *
 * @throws Error when a written path runs through a file HEAD has and the agent did not delete
 * (the workspace refuses such writes, so this would be a bug), rather than commit less than was written.
 */
export async function commitChanges(changes: Changes): Promise<{ commit: string; tree: string } | null> {
  const cwd = changes.dir;
  // Nothing staged: the tree is HEAD's, and no git process needs to run.
  if (changes.written.size === 0 && changes.deleted.size === 0) return null;
  const root: Node = { children: new Map() };
  const at = (path: string): Node => {
    let node = root;
    for (const part of path.split('/')) {
      const key = Buffer.from(part, 'utf8').toString('latin1');
      let child = node.children.get(key);
      if (!child) {
        child = { children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    return node;
  };
  for (const path of changes.deleted) at(path).deleted = true;
  for (const [path, file] of changes.written) at(path).file = file;
  // mktree does not apply git's rules for paths (`.git` and its look-alikes): an index does. The
  // workspace asks git about each path when it is written; any other caller, here.
  if (changes.written.size > 0 && !changes.pathsChecked) {
    const warnings = await withScratchIndex(cwd, changes.written, async (_env, found) => found);
    if (warnings !== '') throw new Error(`git left changes out of the commit: ${warnings.slice(0, 300)}`);
  }

  const { signal } = changes;
  const tree = await withTreeWriter(cwd, signal, async (write) => {
    const build = async (sha: string | null, node: Node, path: string): Promise<string | null> => {
      const entries: Entries = sha ? await readTree(changes.objects, sha) : new Map();
      for (const [name, child] of node.children) {
        const existing = entries.get(name);
        const where = path ? `${path}/${Buffer.from(name, 'latin1').toString('utf8')}` : name;
        if (child.file) {
          entries.set(name, child.file);
          continue;
        }
        if (child.children.size === 0) {
          // A deletion names a file (or link); a folder is never deleted as a whole.
          if (child.deleted && existing && existing.mode !== MODE.tree) entries.delete(name);
          continue;
        }
        // Changes below `name`: a folder of HEAD, a new folder, or one replacing a deleted file.
        if (existing && existing.mode !== MODE.tree && !child.deleted)
          throw new Error(`git cannot commit below "${where}": it is a file.`);
        const below = await build(existing?.mode === MODE.tree ? existing.sha : null, child, where);
        if (below === null) entries.delete(name);
        else entries.set(name, { mode: MODE.tree, sha: below });
      }
      // git keeps no empty folders; only the root may be an empty tree.
      if (entries.size === 0 && path !== '') return null;
      return write(entries);
    };
    return (await build(changes.headTree, root, '')) as string;
  });
  if (tree === changes.headTree) return null;

  const identity = {
    GIT_AUTHOR_NAME: changes.authorName,
    GIT_AUTHOR_EMAIL: changes.authorEmail,
    GIT_COMMITTER_NAME: changes.authorName,
    GIT_COMMITTER_EMAIL: changes.authorEmail,
  };
  const message = changes.message.endsWith('\n') ? changes.message : `${changes.message}\n`;
  const { stdout } = await runGit(['commit-tree', '--no-gpg-sign', tree, '-p', changes.head], {
    cwd,
    env: identity,
    input: message,
    signal,
  });
  const commit = stdout.toString('utf8').trim();
  await runGit(['update-ref', '-m', 'agentjobs: commit', 'HEAD', commit, changes.head], { cwd, signal });
  return { commit, tree };
}

/** The entries of tree `sha`, names as raw bytes (latin1 keys). */
async function readTree(objects: CatFile, sha: string): Promise<Entries> {
  const object = await objects.read(sha);
  if (!object?.content || object.type !== 'tree') throw new Error(`Tree ${sha} is missing.`);
  // Raw format: `<mode> <name>\0<hash bytes>` repeated; the hash is as long as the sha (SHA-1 or SHA-256).
  const hashBytes = sha.length / 2;
  const content = object.content;
  const entries: Entries = new Map();
  let offset = 0;
  while (offset < content.length) {
    const space = content.indexOf(32, offset);
    const nul = content.indexOf(0, space);
    entries.set(content.subarray(space + 1, nul).toString('latin1'), {
      mode: content.subarray(offset, space).toString('latin1'),
      sha: content.subarray(nul + 1, nul + 1 + hashBytes).toString('hex'),
    });
    offset = nul + 1 + hashBytes;
  }
  return entries;
}

function typeOf(mode: string): string {
  if (mode === MODE.tree) return 'tree';
  if (mode === MODE.submodule) return 'commit';
  return 'blob';
}

/**
 * Runs `use` with a function that writes one tree and resolves with its id, all through one
 * `git mktree -z --batch` (it answers each tree, ended by an empty record, with its id on a line).
 * git checks that every entry's object exists, so a tree never names a missing blob.
 */
async function withTreeWriter<T>(
  cwd: string,
  signal: AbortSignal | undefined,
  use: (write: (entries: Entries) => Promise<string>) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw new GitError('mktree', 'aborted', null, '');
  const git = spawnGit(['mktree', '-z', '--batch'], { cwd, signal });
  const { child } = git;
  const waiting: { resolve: (sha: string) => void; reject: (error: Error) => void }[] = [];
  let stdout = '';
  let stderr = '';
  let failure: GitError | null = null;
  const exited = new Promise<number | null>((resolveExit) => {
    child.on('error', () => resolveExit(null));
    child.on('close', (code) => resolveExit(code));
  });
  void exited.then((code) => {
    const reason = signal?.aborted ? 'aborted' : code === null ? 'spawn' : 'exit';
    failure = new GitError('mktree', reason, code, stderr.trim().slice(-2000));
    for (const entry of waiting.splice(0)) entry.reject(failure);
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('latin1');
    for (let newline = stdout.indexOf('\n'); newline >= 0; newline = stdout.indexOf('\n')) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      waiting.shift()?.resolve(line.trim());
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  const write = (entries: Entries): Promise<string> => {
    if (failure) return Promise.reject(failure);
    const records: Buffer[] = [];
    for (const [name, entry] of entries) {
      records.push(Buffer.from(`${entry.mode} ${typeOf(entry.mode)} ${entry.sha}\t`, 'latin1'));
      records.push(Buffer.from(`${name}\0`, 'latin1'));
    }
    records.push(Buffer.from([0]));
    return new Promise((resolveTree, reject) => {
      waiting.push({ resolve: resolveTree, reject });
      child.stdin.write(Buffer.concat(records));
    });
  };
  try {
    const result = await use(write);
    child.stdin.end();
    const code = await exited;
    if (code !== 0) throw failure ?? new GitError('mktree', 'exit', code, stderr.trim());
    return result;
  } catch (error) {
    git.kill();
    await exited;
    throw error;
  }
}
