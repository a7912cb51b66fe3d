/**
 * Only the problems a change makes gate it (docs/architecture.md#the-runs-phases), the way code scanning reports only
 * new alerts: the built-in checks also run on the base version of the files the job modified, and
 * a problem found there too (same check, same file, same message, lines aside) becomes a note.
 * A one-word fix in a page that already held a broken anchor elsewhere then passes, and the agent
 * is never sent to repair what it did not break.
 */
import type { CheckProblem, CheckResult } from '../domain/checks.js';
import type { Change } from './tree.js';

/**
 * What to check in the base: the files the job modified (they existed before). A file it added
 * had no problems before it; one it deleted has none now.
 */
export const baseChanges = (changes: readonly Change[]): Change[] =>
  changes.filter((change) => change.kind === 'modified');

/**
 * `current` with the problems that `base` found as well moved to `notes`. Counted: a page that had
 * one broken link to `/old` and now has two has one new problem.
 */
export function separateKnown(current: CheckResult[], base: readonly CheckResult[]): CheckResult[] {
  const known = new Map<string, number>();
  for (const result of base)
    for (const problem of result.problems) {
      const key = keyOf(result.name, problem);
      known.set(key, (known.get(key) ?? 0) + 1);
    }
  return current.map((result) => {
    if (result.status !== 'failed') return result;
    const problems: CheckProblem[] = [];
    const notes: CheckProblem[] = [...(result.notes ?? [])];
    for (const problem of result.problems) {
      const key = keyOf(result.name, problem);
      const left = known.get(key) ?? 0;
      if (left > 0) {
        known.set(key, left - 1);
        notes.push(problem);
      } else problems.push(problem);
    }
    if (notes.length === 0) return result;
    const already = `${notes.length} already there before this change (notes)`;
    if (problems.length === 0)
      return { ...result, status: 'passed', message: `No new problems; ${already}.`, problems, notes };
    const count = `${problems.length} new problem${problems.length === 1 ? '' : 's'}`;
    return { ...result, message: `${count} found; ${already}.`, problems, notes };
  });
}

/** A problem's identity across versions: line numbers move when text is added above it. */
function keyOf(check: string, problem: CheckProblem): string {
  const message = problem.message.replace(/\blines? \d+/gi, 'line').replace(/\(?\d+:\d+(-\d+:\d+)?\)?/g, '');
  return `${check}\0${problem.path}\0${message}`;
}
