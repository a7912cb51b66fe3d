import { describe, expect, it } from 'vitest';
import { filterByPattern, MAX_PATTERN_LENGTH } from './glob.js';
import { WorkspaceError } from './paths.js';

const FILES = [
  'README.md',
  'docs/index.mdx',
  'docs/guide/intro.md',
  'docs/guide/setup.md',
  'images/logo.png',
];

describe('filterByPattern', () => {
  it.each([
    ['*.md', '', ['README.md', 'docs/guide/intro.md', 'docs/guide/setup.md']],
    ['*.{md,mdx}', '', ['README.md', 'docs/index.mdx', 'docs/guide/intro.md', 'docs/guide/setup.md']],
    ['docs/**/*.md', '', ['docs/guide/intro.md', 'docs/guide/setup.md']],
    ['guide/*.md', 'docs', ['docs/guide/intro.md', 'docs/guide/setup.md']],
    ['*.txt', '', []],
  ])('matches %j under %j', async (pattern, folder, expected) => {
    expect(await filterByPattern(FILES, folder, pattern)).toEqual(expected);
  });

  it('refuses an overlong pattern before any work', async () => {
    await expect(filterByPattern(FILES, '', 'a'.repeat(MAX_PATTERN_LENGTH + 1))).rejects.toThrow(/at most/);
  });

  it('ends a runaway brace expansion with a tool error while the event loop keeps turning', async () => {
    const files = Array.from({ length: 200 }, (_, index) => `docs/page-${index}.md`);
    let ticks = 0;
    let longestGap = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 50);
    try {
      const outcome = await filterByPattern(files, '', '{1..40000}').then(
        (kept) => kept,
        (error: unknown) => error,
      );
      if (Array.isArray(outcome)) expect(outcome).toEqual([]);
      else {
        expect(outcome).toBeInstanceOf(WorkspaceError);
        expect((outcome as Error).message).toMatch(/too complex/);
      }
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
    // Generous: the timer only has to keep running while the pattern is matched elsewhere.
    expect(longestGap).toBeLessThan(5_000);
  }, 60_000);
});
