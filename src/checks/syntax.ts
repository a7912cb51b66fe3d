/**
 * The `syntax` check: JSON and YAML files the job touched parse. JSON is read by `JSON.parse`
 * (YAML would accept trailing commas that JSON tools refuse); YAML by the `yaml` package, every
 * document of a multi-document file, with unknown tags (`!ENV`, `!!python/name:` in mkdocs.yml)
 * allowed, since the tools that read those files define them.
 */
import { LineCounter, parseAllDocuments } from 'yaml';
import type { CheckProblem } from '../domain/checks.js';
import { jsonNesting, MAX_NESTING, tooDeep, yamlNesting } from '../parse/nesting.js';

export const isSyntaxChecked = (path: string) => /\.(json|ya?ml)$/i.test(path) && !isJsonWithComments(path);

/** Files that are JSON with comments by convention (editors and TypeScript read them so). */
function isJsonWithComments(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    /^(tsconfig|jsconfig)(\..*)?\.json$/.test(name) ||
    path.startsWith('.vscode/') ||
    path.includes('/.vscode/') ||
    name === 'devcontainer.json' ||
    name === '.devcontainer.json'
  );
}

/** Runs in the parse worker (see src/parse/pool.ts): a file's nesting is measured before it is parsed. */
export function checkSyntax(path: string, text: string): CheckProblem[] {
  const isJson = /\.json$/i.test(path);
  const depth = isJson ? jsonNesting(text) : yamlNesting(text);
  if (depth > MAX_NESTING) return [{ path, line: null, message: tooDeep(path, depth) }];
  if (isJson) {
    try {
      JSON.parse(text);
      return [];
    } catch (error) {
      const message = (error as Error).message;
      const at = /position (\d+)/.exec(message);
      const line = at ? text.slice(0, Number(at[1])).split('\n').length : null;
      return [
        {
          path,
          line,
          message: `Not valid JSON: ${message}. Fix the syntax (a missing comma or quote, a trailing comma).`,
        },
      ];
    }
  }
  const lines = new LineCounter();
  for (const document of parseAllDocuments(text, { lineCounter: lines, prettyErrors: false })) {
    const [error] = document.errors;
    if (error) {
      return [
        {
          path,
          line: lines.linePos(error.pos[0]).line,
          message: `Not valid YAML: ${error.message.split('\n')[0]}. Fix the indentation or quote the value.`,
        },
      ];
    }
  }
  return [];
}
