/**
 * What a project's setup command reads that decides what it makes: its inputs. The environment's
 * cache key covers them (checks/environment.ts), and in push mode a commit of the service's that
 * changes one holds the next setup until a person accepts it (run/publish.ts). They are:
 * - the lockfiles and manifests package managers read, wherever they are (not inside what was
 *   installed): `package.json` (its scripts run at install, `postinstall`), `.npmrc`, `go.mod`, …;
 * - every file or folder the command names (`bash setup.sh` → `setup.sh`, `make -C tools` →
 *   `tools`), as a word of its command line, with or without a leading `./`.
 * The list cannot know every file a script reads; it need not for safety: an environment is only
 * ever built from the base branch, so what it leaves out can make a cached environment stale, never
 * let another tree's code in.
 */

/** Lockfiles and manifests: the files package managers read to decide what to install. */
const PACKAGE_FILE =
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|yarn\.lock|bun\.lockb?|package\.json|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.cjs|\.nvmrc|\.node-version|\.python-version|\.tool-versions|requirements[^/]*\.txt|constraints[^/]*\.txt|poetry\.lock|pyproject\.toml|Pipfile(\.lock)?|setup\.py|setup\.cfg|uv\.lock|Gemfile(\.lock)?|\.ruby-version|go\.mod|go\.sum|Cargo\.toml|Cargo\.lock)$/;
/** Folders of what was installed: their manifests belong to the packages, not to the project. */
const INSTALLED = /(^|\/)(node_modules|\.venv|vendor)\//;
/** Folders whose whole content a package manager runs: yarn's own releases and plugins. */
const TOOL_FOLDERS = ['.yarn/releases', '.yarn/plugins'];

/** Tells whether a repository path is an input of the setup `command`. */
export type SetupInputTest = (path: string) => boolean;

/** The words of `command` that could name a file: split at blanks, quotes and shell operators. */
export function commandWords(command: string): string[] {
  return [
    ...new Set(
      command
        .split(/[\s;&|()<>`'"=$]+/)
        .map((word) => word.replace(/^\.\//, '').replace(/\/+$/, ''))
        .filter((word) => word !== '' && word !== '.' && !word.startsWith('-') && !word.startsWith('/')),
    ),
  ];
}

/** Whether a path is an input of `command`'s setup (a file, or a folder the command names). */
export function setupInputTest(command: string): SetupInputTest {
  const words = commandWords(command);
  // `make` reads its makefile without naming it.
  const makefiles = words.includes('make') ? ['Makefile', 'makefile', 'GNUmakefile'] : [];
  const named = [...words, ...makefiles, ...TOOL_FOLDERS];
  return (path) =>
    (PACKAGE_FILE.test(path) && !INSTALLED.test(path)) ||
    named.some((word) => path === word || path.startsWith(`${word}/`));
}

/** The paths of `paths` that are inputs of `command`'s setup, sorted. */
export function setupInputsAmong(command: string, paths: Iterable<string>): string[] {
  const test = setupInputTest(command);
  return [...new Set([...paths].filter(test))].sort();
}
