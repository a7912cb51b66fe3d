// What a run pays for its context repositories (docs/architecture.md#the-runs-phases): fetching each into its mirror
// and resolving its branch to a commit, then the first reads (the whole tree listed, one file read),
// for 1 and for 10 context repositories of a 20,000-file repository.
//
//   npm run bench:context-repositories      (BENCH_RUNS=3 re-fetches per row)
//
// Writes one repository of 20,000 source files of about 1 KB in 400 folders (one commit, `git fast-import`)
// in a temporary folder, then fetches it as 1 and as 10 context repositories of one project, the way
// the worker's prepare phase does (src/run/phases/context.ts: 4 fetches at a time, each into its
// own mirror, the default branch named with `ls-remote --symref`): the first fetch (no mirror yet)
// and a re-fetch (the next run, nothing new upstream). Prints one table; removes what it wrote.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, printTable } from './table.mjs';

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
const { fetchContextRepository } = await import(path.join(ROOT, 'dist/git/context-mirror.js'));
const { runGit } = await import(path.join(ROOT, 'dist/git/run.js'));

const FILES = 20_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PARALLEL_FETCHES = 4;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-context-'));
process.on('exit', () => fs.rmSync(temp, { recursive: true, force: true }));
const now = () => performance.now();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => `${value.toFixed(0)} ms`;

// ---- the repository ------------------------------------------------------------------------------

/** About 1 KB of lower-case words per file, which zlib packs to about 0.6 of it, as source code does. */
function words(seed) {
  let x = seed + 1;
  let text = '';
  while (text.length < 1000) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    text += `${x.toString(36)}${x % 9 === 0 ? '\n' : ' '}`;
  }
  return text;
}

function writeRepository(dir) {
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', dir]);
  const parts = [
    'commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\ninit\n',
  ];
  for (let i = 0; i < FILES; i++) {
    const body = `// Module ${i}\n/* ${words(i)} */\nexport function feature${i}(input: string): string {\n  return input.repeat(${i % 7});\n}\n`;
    parts.push(
      `M 100644 inline src/area-${String(Math.floor(i / 50)).padStart(3, '0')}/module-${i}.ts\ndata ${Buffer.byteLength(body)}\n${body}`,
    );
  }
  execFileSync('git', ['fast-import', '--quiet'], {
    cwd: dir,
    input: `${parts.join('\n')}\n`,
    maxBuffer: 1 << 30,
  });
}

const started = now();
const upstream = path.join(temp, 'code.git');
writeRepository(upstream);
const packed = execFileSync('git', ['count-objects', '-vH'], { cwd: upstream }).toString();
const size = /size-pack: (.+)/.exec(packed)?.[1] ?? '?';
console.error(`wrote a ${FILES}-file repository (${size} packed) in ${ms(now() - started)}`);

// ---- one run's fetch -----------------------------------------------------------------------------

/** Fetches `count` context repositories as a run does; returns the wall time and the sources. */
async function fetchAll(mirrorsDir, count) {
  const names = Array.from({ length: count }, (_, i) => `code-${i}`);
  const fetched = [];
  let next = 0;
  const began = now();
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      fetched.push(
        await fetchContextRepository({
          mirrorsDir,
          projectId: 'bench',
          name,
          repository: upstream,
          ref: null,
          env: {},
          freshSince: now(),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_FETCHES, count) }, worker));
  return { wallMs: now() - began, fetched };
}

/** The agent's first reads in one of them: the whole tree listed (list_files), one file read. */
async function firstRead(source) {
  const began = now();
  const { stdout } = await runGit(['ls-tree', '-r', '--name-only', source.commit], { cwd: source.gitDir });
  const paths = stdout.toString('utf8').split('\n').filter(Boolean);
  if (paths.length !== FILES) throw new Error(`listed ${paths.length} files`);
  await runGit(['cat-file', 'blob', `${source.commit}:${paths[12_345]}`], { cwd: source.gitDir });
  return now() - began;
}

const rows = [];
for (const count of [1, 10]) {
  const mirrorsDir = path.join(temp, `mirrors-${count}`);
  const first = await fetchAll(mirrorsDir, count);
  const refetches = [];
  for (let run = 0; run < RUNS; run++) refetches.push((await fetchAll(mirrorsDir, count)).wallMs);
  const reads = [];
  for (let run = 0; run < RUNS; run++) reads.push(await firstRead(first.fetched[0]));
  const mirrorBytes = Number(execFileSync('du', ['-sb', mirrorsDir]).toString().split('\t')[0]);
  rows.push([
    String(count),
    ms(first.wallMs),
    ms(median(refetches)),
    ms(median(reads)),
    `${(mirrorBytes / 2 ** 20).toFixed(1)} MiB`,
  ]);
}

console.log(
  `\n${machine()}; ${FILES.toLocaleString('en')} files, ${size} packed; median of ${RUNS} re-fetches and reads\n`,
);
printTable(
  [
    'Context repositories',
    'First fetch (no mirror)',
    'Re-fetch (next run)',
    'First read (tree + file)',
    'Mirrors on disk',
  ],
  rows,
);
