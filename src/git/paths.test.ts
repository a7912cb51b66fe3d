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
    ['docs/"quoted" name.md', 'docs/"quoted" name.md'],
    ['./"x/../y.md', 'y.md'],
    ['-dash.md', '-dash.md'],
    ['*.md', '*.md'],
    [':(glob)x.md', ':(glob)x.md'],
    ['notes:draft.md', 'notes:draft.md'],
    ['.gitattributes', '.gitattributes'],
    ['.git-hooks/x', '.git-hooks/x'],
    ['git~x/y', 'git~x/y'],
    ['docs/.gitmodules.md', 'docs/.gitmodules.md'],
    // Persian writes U+200C inside words; only inside a .git look-alike is it refused.
    [
      'docs/\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.md',
      'docs/\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.md',
    ],
    ['caf\u00e9.md', 'caf\u00e9.md'],
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
    ['a\rb', /line break/],
    ['a\tb', /control/],
    ['a\u001b[31mb', /control/],
    ['a\u007fb', /control/],
    ['a\u0085b', /control/],
    ['a\u009bb', /control/],
    ['invoice\u202efdp.md', /text-direction/],
    ['a\u2066b', /text-direction/],
    ['a\ud800b', /Unicode/],
    ['"/etc/passwd"', /double quote/],
    ['"/etc/passwd', /double quote/],
    ['"docs/a.md"', /double quote/],
    ['./"x', /double quote/],
    ['.git\u200c/hooks/post-checkout', /read as \.git/],
    ['.g\u200dit/config', /read as \.git/],
    ['.\u200eGit\u200f/config', /read as \.git/],
    ['\ufeff.git/config', /read as \.git/],
    ['.gi\u206at/x', /read as \.git/],
    ['.git./config', /read as \.git/],
    ['.git../config', /read as \.git/],
    ['.git /hooks/x', /read as \.git/],
    ['.GIT. . /x', /read as \.git/],
    ['.git::$INDEX_ALLOCATION/config', /read as \.git/],
    ['.git:stream', /read as \.git/],
    ['GIT~1/config', /read as \.git/],
    ['git~1/config', /read as \.git/],
    ['docs/Git~2./x', /read as \.git/],
    ['docs/.git.', /read as \.git/],
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
    expect(error).toMatchObject({ name: 'PathError', reason: 'outside_repository' });
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
