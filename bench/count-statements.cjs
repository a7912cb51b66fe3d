// Preloaded into a service process by bench/compare.mjs (`node --require`): counts the SQL statements
// it runs through better-sqlite3 (the library on Node before 24), with no change to the service.
//
// BENCH_STATEMENTS_TREE: the tree whose better-sqlite3 the service loads (each tree has its own copy).
// BENCH_STATEMENTS_FILE: rewritten every 200 ms and at exit with `{ count, at: [[epoch ms, sql]…] }`;
// `at` only with BENCH_STATEMENTS_TIMES=1 (for the per-phase profile; rewriting it costs the service
// CPU that grows with the run, so that run's CPU figures are not the service's own).
const fs = require('node:fs');

const { isMainThread } = require('node:worker_threads');

// Worker threads (the parse pool's) that inherit `--require` run no statement: only the main
// thread counts and writes the file, else a thread's empty count would overwrite it.
const file = isMainThread ? process.env.BENCH_STATEMENTS_FILE : undefined;
if (file) {
  const Database = require(require.resolve('better-sqlite3', { paths: [process.env.BENCH_STATEMENTS_TREE] }));
  const keepTimes = process.env.BENCH_STATEMENTS_TIMES === '1';
  let count = 0;
  const at = [];
  const probe = new Database(':memory:');
  const Statement = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = Statement[method];
    Statement[method] = function counted(...args) {
      count += 1;
      if (keepTimes) at.push([Date.now(), this.source]);
      return original.apply(this, args);
    };
  }
  // `exec` runs `begin`/`commit` and pragmas: statements too.
  const exec = Database.prototype.exec;
  Database.prototype.exec = function counted(...args) {
    count += 1;
    if (keepTimes) at.push([Date.now(), String(args[0])]);
    return exec.apply(this, args);
  };
  // Written aside and renamed, so that a reader never finds it half written.
  const write = () => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ count, at }));
    fs.renameSync(`${file}.tmp`, file);
  };
  setInterval(write, 200).unref();
  process.on('exit', write);
}
