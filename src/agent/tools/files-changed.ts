import type { Workspace } from '../../git/workspace.js';

/**
 * A `checkChange` hook that refuses a change that would bring the number of distinct changed paths
 * over `max`. `exceeded` turns true at the first refusal, so the loop can end the run.
 */
export function filesChangedGuard(workspace: Workspace, max: number) {
  let exceeded = false;
  return {
    get exceeded(): boolean {
      return exceeded;
    },
    check(paths: string[]): string | null {
      const changed = new Set(workspace.changedPaths());
      const added = new Set(paths.filter((path) => !changed.has(path)));
      if (changed.size + added.size <= max) return null;
      exceeded = true;
      return `Refused: this job may change at most ${max} files and has already changed ${changed.size}. No file was changed by this call. Stop editing and write your summary for the user, saying what is left to do.`;
    },
  };
}
