/**
 * Setup commands that install only from a lockfile, and the files each needs: `npm ci` fails at
 * once without `package-lock.json` (or `npm-shrinkwrap.json`), and the frozen installs of yarn and
 * pnpm without theirs. `project check` says so before a job's setup fails on it.
 */

/** What a command needs: the tool's words, and the files of which one must be in the repository. */
export interface LockfileNeed {
  command: string;
  files: string[];
}

const NEEDS: { pattern: RegExp; need: LockfileNeed }[] = [
  {
    pattern: /(^|[\s;&|(])npm\s+(ci|clean-install|install-clean)\b/,
    need: { command: 'npm ci', files: ['package-lock.json', 'npm-shrinkwrap.json'] },
  },
  {
    pattern: /(^|[\s;&|(])yarn\s+install\s+[^;&|]*--(frozen-lockfile|immutable)\b/,
    need: { command: 'yarn install --frozen-lockfile', files: ['yarn.lock'] },
  },
  {
    pattern: /(^|[\s;&|(])pnpm\s+install\s+[^;&|]*--frozen-lockfile\b/,
    need: { command: 'pnpm install --frozen-lockfile', files: ['pnpm-lock.yaml'] },
  },
];

/** The lockfiles `command` needs, one entry per tool that installs from one. */
export function lockfilesNeeded(command: string): LockfileNeed[] {
  return NEEDS.filter(({ pattern }) => pattern.test(command)).map(({ need }) => need);
}
