/**
 * The `checks: passed` expectation's checks. Stand-in: the built-in checks of DESIGN §5 (the MDX
 * compiler, links, navigation) are another issue's work; when they land, `runBuiltInChecks` is
 * replaced by a call to them and nothing else in the eval changes. Until then it checks what the
 * `yaml` parser and JSON can: JSON and YAML files parse, front matter is valid YAML, and, in
 * Markdown and MDX outside code, every component tag that opens (`<Steps>`) closes in order, the
 * mistake that breaks an MDX build most often.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/** One problem the checks found. */
export interface CheckProblem {
  path: string;
  line: number | null;
  message: string;
}

/** Checks the files under `dir` (or only `paths`, relative to it); returns the problems found. */
export async function runBuiltInChecks(dir: string, paths?: string[]): Promise<CheckProblem[]> {
  const files = paths ?? (await listFiles(dir));
  const problems: CheckProblem[] = [];
  for (const path of files) {
    const text = await readFile(join(dir, path), 'utf8').catch(() => null);
    if (text === null) continue;
    if (path.endsWith('.json')) problems.push(...jsonProblems(path, text));
    else if (/\.ya?ml$/.test(path)) problems.push(...yamlProblems(path, text, 0));
    else if (/\.mdx?$/.test(path)) problems.push(...markdownProblems(path, text));
  }
  return problems;
}

function jsonProblems(path: string, text: string): CheckProblem[] {
  try {
    JSON.parse(text);
    return [];
  } catch (error) {
    return [{ path, line: null, message: `JSON does not parse: ${(error as Error).message}` }];
  }
}

function yamlProblems(path: string, text: string, firstLine: number): CheckProblem[] {
  try {
    // MkDocs configs use tags such as !!python/name; they are not errors of the file.
    parse(text, { customTags: [], strict: false, logLevel: 'silent' });
    return [];
  } catch (error) {
    const line = (error as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    return [
      {
        path,
        line: line ? line + firstLine : null,
        message: `YAML does not parse: ${(error as Error).message.split('\n')[0]}`,
      },
    ];
  }
}

function markdownProblems(path: string, text: string): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const lines = text.split('\n');
  let body = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    if (end < 0) return [{ path, line: 1, message: 'The front matter is not closed with ---.' }];
    problems.push(...yamlProblems(path, lines.slice(1, end).join('\n'), 1));
    body = end + 1;
  }
  if (!path.endsWith('.mdx')) return problems;
  const open: { name: string; line: number }[] = [];
  let fenced = false;
  for (let index = body; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/<(\/?)([A-Z][\w.]*)\b[^<>]*?(\/?)>/g)) {
      const [, closing, name = '', selfClosing] = match;
      if (selfClosing) continue;
      if (!closing) open.push({ name, line: index + 1 });
      else if (open.at(-1)?.name === name) open.pop();
      else
        problems.push({
          path,
          line: index + 1,
          message: `</${name}> closes nothing open${open.length ? ` (<${open.at(-1)?.name}> is open)` : ''}.`,
        });
    }
  }
  for (const tag of open) problems.push({ path, line: tag.line, message: `<${tag.name}> is never closed.` });
  return problems;
}

async function listFiles(dir: string, root = dir): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path, root)));
    else files.push(relative(root, path));
  }
  return files.sort();
}
