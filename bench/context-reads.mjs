// What a run pays for its context repositories (issue 26): for 1 and for 10 context repositories of
// 20,000 files each, the mirror's first clone, the fetch before a run when nothing changed, and the
// agent's first reads in each (the commit and tree resolved, one file read, a folder listed, the
// whole tree searched for a word in a few files), through the built `Snapshot` (dist/), the reader
// the read tools use. Every repository is a mirror of its own, so no reader or cache is shared.
// Run: npm run bench:context-reads  (BENCH_FILES, default 20000; BENCH_RUNS, default 3)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './report.mjs';
import { makeRepository } from './repos.mjs';
import { machine, printTable } from './table.mjs';

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const COUNTS = [1, 10];
const now = () => performance.timeOrigin + performance.now();
const ms = (value) => `${Math.round(value)}`;

const { ensureMirror } = await import(new URL('../dist/git/mirror.js', import.meta.url));
const { Snapshot } = await import(new URL('../dist/git/snapshot.js', import.meta.url));

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-context-'));
try {
  const upstream = path.join(temp, 'upstream.git');
  makeRepository(upstream, FILES);
  const commit = execFileSync('git', ['rev-parse', 'refs/heads/main'], { cwd: upstream }).toString().trim();
  const rows = [];
  for (const count of COUNTS) {
    const clone = [];
    const fetch = [];
    const firstRead = [];
    const parts = { read: [], list: [], search: [] };
    for (let run = 0; run < RUNS; run++) {
      const mirrorsDir = path.join(temp, `mirrors-${count}-${run}`);
      const ids = Array.from({ length: count }, (_, index) => `code-${index}`);
      // Each its own upstream (hard links), so each clone is a clone of its own.
      const upstreams = ids.map((id) => {
        const dir = path.join(temp, `upstream-${count}-${run}-${id}.git`);
        execFileSync('cp', ['-al', upstream, dir]);
        return dir;
      });
      let started = now();
      const mirrors = [];
      for (const [index, id] of ids.entries())
        mirrors.push(
          await ensureMirror({ mirrorsDir, projectId: id, repository: upstreams[index], env: {} }),
        );
      clone.push(now() - started);
      started = now();
      for (const [index, id] of ids.entries())
        await ensureMirror({ mirrorsDir, projectId: id, repository: upstreams[index], env: {} });
      fetch.push(now() - started);
      started = now();
      const spent = { read: 0, list: 0, search: 0 };
      const timed = async (part, task) => {
        const from = now();
        const result = await task();
        spent[part] += now() - from;
        return result;
      };
      for (const gitDir of mirrors) {
        const snapshot = Snapshot.open({ gitDir, commit });
        // The first read also starts the reader and resolves the commit and its tree.
        await timed('read', () => snapshot.readFile('docs/section-03/page-0013.md'));
        await timed('list', () => snapshot.listFiles('docs/section-07'));
        const found = await timed('search', () => snapshot.search('Page 19999', { limit: 100 }));
        if (FILES === 20_000 && found.matches.length !== 1)
          throw new Error('the search found the wrong lines');
        await snapshot.close();
      }
      firstRead.push(now() - started);
      for (const part of Object.keys(parts)) parts[part].push(spent[part] / count);
      fs.rmSync(mirrorsDir, { recursive: true, force: true });
      for (const dir of upstreams) fs.rmSync(dir, { recursive: true, force: true });
    }
    rows.push([
      String(count),
      ms(percentile(clone, 50)),
      ms(percentile(fetch, 50)),
      ms(percentile(firstRead, 50)),
      ms(percentile(firstRead, 50) / count),
      ms(percentile(parts.read, 50)),
      ms(percentile(parts.list, 50)),
      ms(percentile(parts.search, 50)),
    ]);
  }
  console.log(
    `${FILES} files per repository, median of ${RUNS} runs; ${machine()}, load ${os.loadavg()[0].toFixed(1)}`,
  );
  printTable(
    [
      'context repositories',
      'first clone ms',
      'fetch (up to date) ms',
      'first reads ms',
      'each ms',
      'read_file ms',
      'list_files (2,000 files) ms',
      'search_files ms',
    ],
    rows,
  );
} finally {
  fs.rmSync(temp, { recursive: true, force: true });
}
