import { describe, expect, it } from 'vitest';
import { isBinary, PathError, resolveRepoPath, WorkspaceError } from './paths.js';

describe('resolveRepoPath', () => {
  it.each([
    ['README.md', 'README.md'],
    ['docs/index.md', 'docs/index.md'],
    ['./docs//guide/../index.md', 'docs/index.md'],
    ['docs/', 'docs'],
    ['docs\\guide\\intro.md', 'docs/guide/intro.md'],
    ['a/../b.md', 'b.md'],
    ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
    ['.gitignore', '.gitignore'],
    ['docs/.gitkeep', 'docs/.gitkeep'],
    ['name with spaces.md', 'name with spaces.md'],
  ])('normalizes %j to %j', (input, expected) => {
    expect(resolveRepoPath(input)).toBe(expected);
  });

  it.each([
    ['', /empty/],
    ['/etc/passwd', /absolute/],
    ['/docs/index.md', /relative to the repository root/],
    ['C:\\Windows\\x', /absolute/],
    ['c:/x', /absolute/],
    ['\\\\server\\share', /absolute/],
    ['..', /outside the repository/],
    ['../x', /outside the repository/],
    ['docs/../../x', /outside the repository/],
    ['..\\..\\x', /outside the repository/],
    ['.git', /\.git/],
    ['.git/config', /\.git/],
    ['.GIT/HEAD', /\.git/],
    ['docs/.Git/x', /\.git/],
    ['docs/../.git/config', /\.git/],
    ['a\0b', /NUL/],
    ['a\nb', /line break/],
    ['.', /root/],
    ['./', /root/],
  ])('refuses %j', (input, message) => {
    expect(() => resolveRepoPath(input)).toThrow(PathError);
    expect(() => resolveRepoPath(input)).toThrow(message);
  });

  it('gives the root as an empty path when asked to', () => {
    expect(resolveRepoPath('.', { allowRoot: true })).toBe('');
    expect(resolveRepoPath('docs/..', { allowRoot: true })).toBe('');
    expect(() => resolveRepoPath('', { allowRoot: true })).toThrow(PathError);
  });

  it('marks escapes with their own code; every refusal is a WorkspaceError', () => {
    const error = (() => {
      try {
        resolveRepoPath('../x');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ name: 'PathError', code: 'outside_repository' });
  });
});

describe('isBinary', () => {
  it('looks for a NUL byte in the first 8 KiB', () => {
    expect(isBinary(Buffer.from('plain text\n'))).toBe(false);
    expect(isBinary(Buffer.from('é ü ✓ unicode'))).toBe(false);
    expect(isBinary(Buffer.alloc(0))).toBe(false);
    expect(isBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]))).toBe(true);
    const late = Buffer.alloc(10_000, 0x61);
    late[9_000] = 0;
    expect(isBinary(late)).toBe(false);
    late[8_000] = 0;
    expect(isBinary(late)).toBe(true);
  });
});
