#!/usr/bin/env node
// Prints every function (declarations, methods, arrow functions, function expressions)
// longer than a limit in the given folders, and exits 1 if any is found, so it can
// guard the "no function over 100 lines" rule in `npm run lint`.
// Test files are skipped: a `describe` callback is a list of cases, not a function to split.
// Usage: node scripts/function-lengths.mjs [--max 100] folder...
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
let max = 100;
const folders = [];
for (let index = 0; index < args.length; index++) {
  if (args[index] === '--max') max = Number(args[++index]);
  else folders.push(args[index]);
}
if (!Number.isInteger(max) || max < 1 || folders.length === 0) {
  console.error('usage: node scripts/function-lengths.mjs [--max N] folder...');
  process.exit(2);
}

function* sourceFiles(path) {
  if (statSync(path).isFile()) {
    if (/\.(ts|tsx|mts|cts)$/.test(path) && !/\.(d|test)\.ts$/.test(path)) yield path;
    return;
  }
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    yield* sourceFiles(join(path, entry));
  }
}

function nameOf(node, sourceFile) {
  if (node.name) return node.name.getText(sourceFile);
  // An anonymous function takes the name of what it is assigned to, if anything.
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(sourceFile);
  }
  return '(anonymous)';
}

const long = [];
for (const folder of folders) {
  for (const file of sourceFiles(folder)) {
    const sourceFile = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
        const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > max) long.push({ file, line: start + 1, lines, name: nameOf(node, sourceFile) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
}

long.sort((a, b) => b.lines - a.lines);
for (const entry of long) console.log(`${entry.file}:${entry.line} ${entry.name} ${entry.lines} lines`);
if (long.length > 0) {
  console.error(`${long.length} function(s) over ${max} lines`);
  process.exit(1);
}
