/** What the tests of check settings on the command line share. */
import { CLI, type CliResult, runToEnd } from './processes.js';

/** The arguments of `project create` of `repo` as "Docs", with `options`. */
export const createDocsArgs = (repo: string, ...options: string[]): string[] => [
  'project',
  'create',
  '--name',
  'Docs',
  '--repo',
  repo,
  ...options,
];

/**
 * Runs the built CLI where control groups cannot be made: in its own mount namespace, with an
 * empty tmpfs over /sys/fs/cgroup (as root; the rest of the machine sees nothing of it).
 */
export function cliWithoutGroups(args: string[], env: Record<string, string>): Promise<CliResult> {
  const inNamespace = ['sh', '-c', 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"', 'sh'];
  return runToEnd(
    'unshare',
    ['--mount', '--propagation', 'private', ...inNamespace, process.execPath, CLI, ...args],
    { env },
  );
}
