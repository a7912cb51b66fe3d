/**
 * The `conflicts` check: a file the job changed must not hold the markers git writes into a file
 * whose merge conflicted (docs/api.md: a follow-up merges the base first and hands the
 * conflicting files to the agent with their markers). Only a whole set in git's order counts, each
 * marker at the start of its line: `<<<<<<< label`, optionally `||||||| label`, then `=======`
 * alone, then `>>>>>>> label`; so a Markdown setext heading (`=======` under a title) or a lone
 * `>>>>>>>` quote is never taken for one.
 */
import type { CheckProblem } from '../domain/checks.js';

const OPEN = /^<{7}(?: .*)?$/;
const BASE = /^\|{7}(?: .*)?$/;
const MIDDLE = /^={7}$/;
const CLOSE = /^>{7}(?: .*)?$/;

/** The conflicts left in `text`, one problem per set of markers, at its `<<<<<<<` line. */
export function conflictMarkers(path: string, text: string): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const lines = text.split(/\r?\n/);
  // 'open' after `<<<<<<<` (and `|||||||`), 'middle' after `=======`.
  let state: 'none' | 'open' | 'middle' = 'none';
  let openedAt = 0;
  for (const [index, line] of lines.entries()) {
    if (OPEN.test(line)) {
      state = 'open';
      openedAt = index + 1;
    } else if (state === 'open' && MIDDLE.test(line)) state = 'middle';
    else if (state === 'open' && BASE.test(line)) continue;
    else if (state === 'middle' && CLOSE.test(line)) {
      problems.push({
        path,
        line: openedAt,
        message: `A merge conflict is left here (lines ${openedAt}–${index + 1}, between \`<<<<<<<\` and \`>>>>>>>\`): keep what both sides meant, and remove the three marker lines.`,
      });
      state = 'none';
    }
  }
  return problems;
}
