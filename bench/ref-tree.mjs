// A built copy of this repository at another git ref, for bench/compare.mjs to run beside the current tree.
//
// The ref's files come from `git archive` (no worktree is registered in the repository), its
// node_modules are this tree's, hard-linked (`cp -al`: no copy, no install), and each package the
// ref's lockfile names that this tree no longer has is fetched with `npm pack` at the locked
// version and unpacked beside them. Then `tsc` builds it. The result is kept in the system's temp
// folder, one per commit, so a second run starts at once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);

/** The folder of a built tree of `ref` (its `dist/cli/main.js` runs the service), made on first use. */
export function refTree(ref, log) {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT })
    .toString()
    .trim();
  const dir = path.join(os.tmpdir(), `agentjobs-bench-ref-${commit}`);
  if (fs.existsSync(path.join(dir, 'bench-complete'))) return { dir, commit };
  log(`building ${ref} (${commit.slice(0, 7)}) in ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const partial = `${dir}.tmp-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], {
    cwd: ROOT,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', partial], { input: archive });
  execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(partial, 'node_modules')]);
  addMissingPackages(partial, log);
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json', 'tsconfig.client.json'],
    { cwd: partial, stdio: 'inherit' },
  );
  fs.writeFileSync(path.join(partial, 'bench-complete'), '');
  fs.renameSync(partial, dir);
  return { dir, commit };
}

/** Unpacks, at its locked version, every package of `dir`'s lockfile that its node_modules lacks. */
function addMissingPackages(dir, log) {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  const packs = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-bench-packs-'));
  try {
    for (const [where, entry] of Object.entries(lock.packages ?? {})) {
      if (!where.startsWith('node_modules/') || entry.link || entry.optional || entry.dev) continue;
      const target = path.join(dir, where);
      if (fs.existsSync(path.join(target, 'package.json'))) continue;
      const name = entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
      log(`  ${name}@${entry.version} is not in this tree's node_modules: npm pack`);
      const file = execFileSync('npm', ['pack', '--silent', `${name}@${entry.version}`], { cwd: packs })
        .toString()
        .trim()
        .split('\n')
        .pop();
      // A hard-linked folder is shared with this tree: the new package goes in a folder of its own.
      fs.mkdirSync(target, { recursive: true });
      execFileSync('tar', ['-xzf', path.join(packs, file), '-C', target, '--strip-components=1']);
    }
  } finally {
    fs.rmSync(packs, { recursive: true, force: true });
  }
}
