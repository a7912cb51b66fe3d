// The test repositories of the benchmark scripts, written with `git fast-import`; `git clone` timed on them.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './report.mjs';

const CACHE = path.join(os.tmpdir(), 'agentjobs-bench-repos');
/** A word in 1 of 1,000 pages: a search for it reads the whole tree and finds a few lines. */
export const NEEDLE = 'kumquat';
const now = () => performance.timeOrigin + performance.now();

// ---- bench/job.mjs: pages with history, cached -------------------------------------------------

/** Page `i` of `files`: docs/area-NN/topic-NN/page-NNN.md, 20 × 20 folders. */
export function pagePath(i, files) {
  const pages = Math.max(1, Math.ceil(files / 400));
  const area = String(Math.floor(i / pages / 20)).padStart(2, '0');
  const topic = String(Math.floor(i / pages) % 20).padStart(2, '0');
  return `docs/area-${area}/topic-${topic}/page-${String(i % pages).padStart(3, '0')}.md`;
}

function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** A page of random lowercase words in lines of about 75 characters: about 0.75 of it survives zlib. */
function page(random, i, revision, size) {
  const body = Buffer.allocUnsafe(size);
  let column = 0;
  for (let k = 0; k < size; k += 4) {
    let r = random();
    for (let j = 0; j < 4 && k + j < size; j++) {
      const b = r & 0xff;
      r >>>= 8;
      if (column > 72 && b < 64) {
        body[k + j] = 10;
        column = 0;
      } else {
        body[k + j] = b < 40 ? 32 : 97 + (b % 26);
        column += 1;
      }
    }
  }
  const needle = i % 1000 === 7 ? `\nThe ${NEEDLE} is here.\n` : '';
  return Buffer.concat([
    Buffer.from(`# Page ${i}, revision ${revision}\n\n`),
    body,
    Buffer.from(`${needle}\n`),
  ]);
}

/**
 * One fast-import stream: a first commit with every page, then commits that each rewrite a random
 * set of pages with fresh text (400 B to 2 KB), enough for about `historyMiB` of packed history.
 */
async function generateRepo(dir, { files, commits, historyMiB }) {
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  const child = spawn('git', ['fast-import', '--quiet', '--done'], {
    cwd: dir,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)),
    ),
  );
  const write = async (chunk) => {
    if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  };
  const random = xorshift(files * 7919 + commits);
  const averagePage = 1200;
  const perCommit = Math.max(
    1,
    Math.round(((historyMiB * 2 ** 20) / 0.75 / averagePage - files) / (commits - 1)),
  );
  let time = 1_700_000_000;
  for (let c = 0; c < commits; c++) {
    time += 3600;
    const message = c === 0 ? 'Add the pages' : `Revise ${perCommit} pages`;
    await write(
      `commit refs/heads/main\ncommitter Bench <bench@example.com> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`,
    );
    const count = c === 0 ? files : perCommit;
    for (let n = 0; n < count; n++) {
      const i = c === 0 ? n : random() % files;
      const content = page(random, i, c, 400 + (random() % 1600));
      await write(
        Buffer.concat([
          Buffer.from(`M 100644 inline ${pagePath(i, files)}\ndata ${content.length}\n`),
          content,
          Buffer.from('\n'),
        ]),
      );
    }
    await write('\n');
  }
  await write('done\n');
  child.stdin.end();
  await exited;
}

/** The cached repository for `spec`, generated on first use (`log` tells of the generation). */
export async function cachedRepo(spec, log) {
  const dir = path.join(
    CACHE,
    `files-${spec.files}-commits-${spec.commits}-history-${spec.historyMiB}mib-v1`,
  );
  if (!fs.existsSync(path.join(dir, 'bench-complete'))) {
    log(`generating ${spec.label} (${spec.historyMiB} MiB of history) in ${dir}`);
    const started = now();
    fs.rmSync(dir, { recursive: true, force: true });
    const partial = `${dir}.tmp-${process.pid}`;
    fs.mkdirSync(CACHE, { recursive: true });
    await generateRepo(partial, spec);
    fs.writeFileSync(path.join(partial, 'bench-complete'), '');
    fs.renameSync(partial, dir);
    log(`  generated in ${((now() - started) / 1000).toFixed(1)} s`);
  }
  const counts = Object.fromEntries(
    execFileSync('git', ['count-objects', '-v'], { cwd: dir })
      .toString()
      .trim()
      .split('\n')
      .map((line) => line.split(': ')),
  );
  return { ...spec, dir, packMiB: Number(counts['size-pack']) / 1024, objects: Number(counts['in-pack']) };
}

/**
 * A throwaway upstream for one run in `temp` (job branches are pushed into it): hard links where
 * possible.
 */
export function upstreamCopy(repo, temp) {
  const target = path.join(temp, `upstream-${repo.files}.git`);
  try {
    execFileSync('cp', ['-al', repo.dir, target]);
  } catch {
    fs.rmSync(target, { recursive: true, force: true });
    execFileSync('cp', ['-a', repo.dir, target]);
  }
  return target;
}

/** Median of three runs of `git clone <args> <repo> <tmp>` (in `temp`), with its checkout. */
export function timeClone(repo, args, temp) {
  const runs = [];
  for (let n = 0; n < 3; n++) {
    const target = path.join(temp, `clone-${n}`);
    const started = now();
    execFileSync('git', ['clone', '--quiet', ...args, repo.dir, target]);
    runs.push(now() - started);
    fs.rmSync(target, { recursive: true, force: true });
  }
  return percentile(runs, 50);
}

// ---- bench/concurrency.mjs: one commit of pages ------------------------------------------------

/** A bare repository of `files` Markdown pages in 10 folders, one commit, on `main`. */
export function makeRepository(dir, files) {
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  const parts = [
    'commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 9\nAdd pages\n',
  ];
  for (let i = 0; i < files; i++) {
    const body = `# Page ${i}\n\n${'Some words about this page. '.repeat(20 + (i % 40))}\n`;
    const name = `docs/section-${String(i % 10).padStart(2, '0')}/page-${String(i).padStart(4, '0')}.md`;
    parts.push(`M 100644 inline ${name}\ndata ${Buffer.byteLength(body)}\n${body}\n`);
  }
  parts.push('\ndone\n');
  execFileSync('git', ['fast-import', '--quiet', '--done'], { cwd: dir, input: parts.join('') });
}
