// What the checks add to a job (docs/architecture.md#the-runs-phases).
//
//   npm run build --silent && node bench/checks.mjs      (BENCH_RUNS=15 runs per case)
//
// Generates Mintlify-style sites of 50 and 5,000 MDX pages (front matter, headings, links to other
// pages, a docs.json naming every page) as git repositories, makes a job's lazy workspace on each
// (as the worker does), and times the built-in checks when the job changed one page, and when it
// deleted one (the checks then search for the pages that linked to it). Then times a sandboxed
// command's start: `true` in bubblewrap on an empty folder, and the whole command check on the
// 50- and 5,000-page sites (the checkout of the job's tree included). Prints one table of medians.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBuiltInChecks } from '../dist/checks/built-in.js';
import { runCommandCheck } from '../dist/checks/command.js';
import { runSandboxed, sandboxStatus } from '../dist/checks/sandbox.js';
import { workspaceChanges, workspaceTree } from '../dist/checks/workspace-tree.js';
import { ensureMirror } from '../dist/git/mirror.js';
import { Workspace } from '../dist/git/workspace.js';
import { machine, printTable } from './table.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-checks-'));
process.on('exit', () => fs.rmSync(temp, { recursive: true, force: true }));

const pageName = (i) => `guides/area-${String(Math.floor(i / 100)).padStart(2, '0')}/page-${i}`;

function page(i, pages) {
  const next = (i + 1) % pages;
  const other = (i * 7 + 3) % pages;
  return `---\ntitle: Page ${i}\ndescription: About topic ${i}\n---\n\n# Page ${i}\n\n<Note>\nRead [the next page](/${pageName(next)}) and [another](/${pageName(other)}#usage).\n</Note>\n\n## Usage\n\nSome text about ${i}, with \`code\` and a [link](https://example.com/${i}).\n\n\`\`\`bash\nacme run --page ${i}\n\`\`\`\n\n## Options\n\n| Option | Meaning |\n|---|---|\n| --a | first |\n`;
}

function makeSite(pages) {
  const dir = path.join(temp, `site-${pages}`);
  fs.mkdirSync(dir, { recursive: true });
  const names = [];
  for (let i = 0; i < pages; i++) {
    const name = pageName(i);
    names.push(name);
    fs.mkdirSync(path.dirname(path.join(dir, `${name}.mdx`)), { recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.mdx`), page(i, pages));
  }
  const groups = [];
  for (let i = 0; i < names.length; i += 100)
    groups.push({ group: `Area ${i / 100}`, pages: names.slice(i, i + 100) });
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({ name: 'Bench', navigation: { groups } }, null, 2),
  );
  const git = (...args) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=b', '-c', 'user.email=b@e', 'commit', '-q', '-m', 'site');
  return dir;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;

async function time(runs, setup, measure) {
  const times = [];
  for (let run = 0; run < runs; run++) {
    const context = await setup(run);
    const started = performance.now();
    await measure(context);
    times.push(performance.now() - started);
    await context.workspace?.close();
  }
  return median(times);
}

const rows = [];
for (const pages of [50, 5000]) {
  const site = makeSite(pages);
  const mirrorPath = await ensureMirror({
    mirrorsDir: path.join(temp, 'mirrors'),
    projectId: `p${pages}`,
    repository: site,
    env: {},
  });
  const open = async (run) =>
    Workspace.create({
      mirrorPath,
      dir: path.join(temp, 'work', `${pages}-${run}`),
      branch: `job-${run}`,
      baseRef: 'main',
    });
  const target = pageName(Math.floor(pages / 2));
  const check = async ({ workspace }) => {
    const changes = await workspaceChanges(workspace, 'main');
    const results = await runBuiltInChecks({ tree: workspaceTree(workspace), changes });
    if (results.some((result) => result.status === 'error')) throw new Error(JSON.stringify(results));
    return results;
  };
  const changed = await time(
    RUNS,
    async (run) => {
      const workspace = await open(run);
      await workspace.writeFile(`${target}.mdx`, `${page(0, pages)}\nOne more line.\n`);
      return { workspace };
    },
    check,
  );
  const deleted = await time(
    RUNS,
    async (run) => {
      const workspace = await open(RUNS + run);
      await workspace.deleteFile(`${target}.mdx`);
      return { workspace };
    },
    check,
  );
  rows.push([`${pages.toLocaleString('en')} pages`, 'built-in checks, one page changed', ms(changed)]);
  rows.push([
    `${pages.toLocaleString('en')} pages`,
    'built-in checks, one page deleted (referrers searched)',
    ms(deleted),
  ]);

  const status = await sandboxStatus();
  if (status.available) {
    const command = await time(
      Math.min(RUNS, pages > 1000 ? 3 : 7),
      async (run) => ({ workspace: await open(2 * RUNS + run) }),
      async ({ workspace }) => {
        const result = await runCommandCheck({
          command: 'true',
          timeoutSeconds: 60,
          memoryBytes: 512 * 1024 * 1024,
          materialize: (dir) => workspace.materialize(dir),
          scratchDir: path.join(temp, 'scratch'),
          redact: (text) => text,
        });
        if (result.status !== 'passed') throw new Error(JSON.stringify(result));
      },
    );
    rows.push([
      `${pages.toLocaleString('en')} pages`,
      'check command `true`: checkout + sandbox',
      ms(command),
    ]);
  }
}

const status = await sandboxStatus();
if (status.available) {
  const empty = fs.mkdtempSync(path.join(temp, 'empty-'));
  const start = await time(
    RUNS,
    async () => ({}),
    async () =>
      runSandboxed({
        command: 'true',
        dir: empty,
        timeoutMs: 10_000,
        memoryBytes: 256 * 1024 * 1024,
        maxOutputBytes: 4096,
      }),
  );
  const bare = await time(
    RUNS,
    async () => ({}),
    async () => execFileSync('/bin/sh', ['-c', 'true']),
  );
  rows.push(['—', 'sandbox start: `true` in bubblewrap', ms(start)]);
  rows.push(['—', 'for comparison: `sh -c true` without a sandbox', ms(bare)]);
} else {
  console.error(`sandbox not measured: ${status.reason}`);
}

console.log(`${machine()}; median of ${RUNS} runs\n`);
printTable(['site', 'what', 'time'], rows);
