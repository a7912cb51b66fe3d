/**
 * The `checks: passed` expectation: the service's own built-in checks (`src/checks/`,
 * docs/checks.md) on the task's result, over what the run changed, exactly as a job's run is checked
 * before it is published.
 */
import { runBuiltInChecks } from '../checks/index.js';
import { type Change, directoryTree } from '../checks/tree.js';
import type { CheckProblem } from '../domain/checks.js';

export type { Change, CheckProblem };

/**
 * The problems the built-in checks find in `dir` when `changes` are what changed. A check that
 * could not run counts as a problem too: the expectation is that the checks pass.
 */
export async function checkProblems(dir: string, changes: readonly Change[]): Promise<CheckProblem[]> {
  const results = await runBuiltInChecks({ tree: directoryTree(dir), changes });
  return results.flatMap((result) =>
    result.status === 'error' ? [{ path: '', line: null, message: result.message }] : result.problems,
  );
}

/** `git diff --name-status --no-renames` output as the checks' changes. */
export function changesOf(nameStatus: string): Change[] {
  return nameStatus
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [status = '', path = ''] = line.split('\t');
      const kind = status.startsWith('A') ? 'added' : status.startsWith('D') ? 'deleted' : 'modified';
      return { path, kind };
    });
}
