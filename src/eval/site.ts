/**
 * The files of an eval task's site, as they reach the model. A suite is somebody's folder of task
 * files: what a task names must stay inside it, and nothing of the site that git would run (a
 * `.git` with its config and hooks) or that leads elsewhere (a symlink to a file outside) is copied.
 */
import { cp, lstat, realpath } from 'node:fs/promises';
import { basename, isAbsolute, relative } from 'node:path';

/** True when `path` is `folder` or inside it; both absolute, symlinks already resolved. */
export function isInside(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/**
 * Copies the site at `siteDir` (its real path) to `target`, which must not exist: files and folders,
 * and symlinks as links (never their targets' content) when they lead inside the site. A `.git`
 * file or folder at any depth is left out, so the copy is made a repository afresh. Rejects, naming
 * the path, on a symlink that leads outside the site or nowhere, and on anything else that is not a
 * file or a folder.
 */
export async function copySite(siteDir: string, target: string): Promise<void> {
  await cp(siteDir, target, {
    recursive: true,
    verbatimSymlinks: true,
    errorOnExist: true,
    force: false,
    filter: async (source) => {
      if (source !== siteDir && basename(source).toLowerCase() === '.git') return false;
      if (!(await lstat(source)).isSymbolicLink()) return true;
      const leadsTo = await realpath(source).catch(() => null);
      if (leadsTo === null || !isInside(leadsTo, siteDir))
        throw new Error(
          `site: ${relative(siteDir, source)} is a symlink that leads ${leadsTo === null ? 'nowhere' : 'outside the site'}`,
        );
      return true;
    },
  });
}
