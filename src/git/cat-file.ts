/**
 * One long-lived `git cat-file --batch` process: workspaces read every tree and blob through it, so
 * a read costs a pipe round trip instead of a process start, and nothing is checked out. Objects
 * are shared by a mirror and all its worktrees, so one process per mirror serves every workspace
 * on it (`openMirrorReader`). Names such as `refs/heads/main^{commit}` are resolved afresh on each
 * request (git reads loose and packed refs from disk every time), and objects written after it
 * started (a fetch, `hash-object -w`) are found too: git looks for new packs when an object is missing.
 *
 * Protocol: we write `<object>\n`; git answers `<sha> <type> <size>\n<content>\n`, or
 * `<object> missing\n` (`ambiguous` for a short sha). Answers come in request order, so pending
 * requests are a FIFO queue.
 */
import { GitError, type GitProcess, spawnGit } from './run.js';

/** An object read from the repository. */
export interface GitObject {
  sha: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  size: number;
  /** null when the object is larger than the `maxBytes` of the request (its bytes were skipped). */
  content: Buffer | null;
}

interface Request {
  maxBytes: number;
  resolve: (object: GitObject | null) => void;
  reject: (error: Error) => void;
}

interface Body {
  object: Omit<GitObject, 'content'>;
  keep: boolean;
  /** Bytes still to come, including the newline that ends the content. */
  remaining: number;
  chunks: Buffer[];
}

/** A commit and its tree, as `resolveCommit` finds them. */
export interface CommitAndTree {
  commit: string;
  tree: string;
}

/** Reads objects of the repository at `cwd` through a single `git cat-file --batch`. */
export class CatFile {
  private git: GitProcess | null = null;
  private readonly pending: Request[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private body: Body | null = null;
  private stderr = '';
  private closed = false;

  /**
   * `signal` ends the reader for good: its git (and anything git started) is killed and pending
   * reads fail. A reader shared by several jobs (`openMirrorReader`) has none; each job's release ends it.
   */
  constructor(
    private readonly cwd: string,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener('abort', () => this.abort(), { once: true });
  }

  /**
   * Reads `object` (a sha, `<rev>:<path>`, `<rev>^{tree}`, …). Resolves null when it does not exist.
   * Content over `maxBytes` is streamed past and not kept, so a huge blob cannot fill memory.
   */
  read(object: string, maxBytes = Number.POSITIVE_INFINITY): Promise<GitObject | null> {
    if (this.closed || this.signal?.aborted)
      return Promise.reject(new GitError('cat-file', 'aborted', null, 'reader is closed'));
    // A line break would desynchronize the protocol for every later request.
    if (/[\r\n]/.test(object)) return Promise.resolve(null);
    const { child } = this.start();
    return new Promise((resolve, reject) => {
      this.pending.push({ maxBytes, resolve, reject });
      child.stdin.write(`${object}\n`);
    });
  }

  /**
   * The commit `rev` names (`refs/heads/main`, a sha) and its tree, or null when there is none. The
   * tree is the first line of the commit object (`tree <sha>`).
   */
  async resolveCommit(rev: string): Promise<CommitAndTree | null> {
    const object = await this.read(`${rev}^{commit}`, 1024 * 1024);
    const tree = object?.content ? /^tree ([0-9a-f]{40,64})\n/.exec(object.content.toString('latin1')) : null;
    if (!object || !tree) return null;
    return { commit: object.sha, tree: tree[1] as string };
  }

  /**
   * Ends the process (closing its stdin is how cat-file is told to stop) and waits for it; one that
   * does not stop within 5 s is killed with its process group.
   */
  async close(): Promise<void> {
    this.closed = true;
    const git = this.git;
    if (!git) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(git.kill, 5_000);
      git.child.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      git.child.stdin.end();
    });
  }

  /** Kills the process group at once and fails what is pending (the reader's signal aborted). */
  private abort(): void {
    this.closed = true;
    const git = this.git;
    if (!git) return;
    this.git = null;
    git.kill();
    const error = new GitError('cat-file', 'aborted', null, '');
    for (const request of this.pending.splice(0)) request.reject(error);
  }

  /** Starts cat-file on first use, and again after a crash, so one failure does not end the workspace. */
  private start(): GitProcess {
    if (this.git) return this.git;
    const git = spawnGit(['cat-file', '--batch'], { cwd: this.cwd });
    const { child } = git;
    this.git = git;
    this.buffer = Buffer.alloc(0);
    this.body = null;
    this.stderr = '';
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-2_000);
    });
    const onEnd = (code: number | null) => {
      if (this.git !== git) return;
      this.git = null;
      const error = new GitError('cat-file', 'exit', code, this.stderr.trim());
      for (const request of this.pending.splice(0)) request.reject(error);
    };
    child.on('error', () => onEnd(null));
    child.on('close', onEnd);
    return git;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.body) {
        const body = this.body;
        const take = Math.min(body.remaining, this.buffer.length);
        if (take === 0) return;
        if (body.keep) body.chunks.push(this.buffer.subarray(0, take));
        this.buffer = this.buffer.subarray(take);
        body.remaining -= take;
        if (body.remaining > 0) return;
        this.body = null;
        const content = body.keep ? Buffer.concat(body.chunks).subarray(0, body.object.size) : null;
        this.pending.shift()?.resolve({ ...body.object, content });
        continue;
      }
      const newline = this.buffer.indexOf(10);
      if (newline < 0) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      this.buffer = this.buffer.subarray(newline + 1);
      // Anything but `<sha> <type> <size>` is `<object> missing|ambiguous`; the object name may hold spaces.
      const found = /^([0-9a-f]{40,64}) (blob|tree|commit|tag) (\d+)$/.exec(header);
      if (!found) {
        this.pending.shift()?.resolve(null);
        continue;
      }
      const request = this.pending[0];
      const object = { sha: found[1] as string, type: found[2] as GitObject['type'], size: Number(found[3]) };
      this.body = {
        object,
        keep: object.size <= (request?.maxBytes ?? 0),
        remaining: object.size + 1,
        chunks: [],
      };
    }
  }
}

const mirrorReaders = new Map<string, { reader: CatFile; users: number }>();

/** A shared reader of a mirror's objects, held until `release`. */
export interface MirrorReader {
  reader: CatFile;
  /** Ends the reader's process once its last user released it. Idempotent. */
  release(): Promise<void>;
}

/**
 * The `git cat-file --batch` of the mirror at `mirrorPath` (absolute), shared by every user in this
 * process: a burst of jobs on one project runs one reader, not one each. Its process ends when the
 * last user releases it, so an idle service holds none.
 */
export function openMirrorReader(mirrorPath: string): MirrorReader {
  let entry = mirrorReaders.get(mirrorPath);
  if (!entry) {
    entry = { reader: new CatFile(mirrorPath), users: 0 };
    mirrorReaders.set(mirrorPath, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    reader: held.reader,
    async release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (mirrorReaders.get(mirrorPath) === held) mirrorReaders.delete(mirrorPath);
      await held.reader.close();
    },
  };
}
