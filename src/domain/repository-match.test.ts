import { describe, expect, it } from 'vitest';
import { matchRepository, normaliseRepositoryUrl, type RepositoryCandidate } from './repository-match.js';

describe('normaliseRepositoryUrl', () => {
  it.each([
    ['https://github.com/Org/Docs.git', 'github.com/org/docs'],
    ['https://GitHub.com/org/docs/', 'github.com/org/docs'],
    ['http://gitea.example.com:3000/org/docs', 'gitea.example.com/org/docs'],
    ['git@github.com:org/docs.git', 'github.com/org/docs'],
    ['ssh://git@gitlab.example.com:2222/group/sub/docs.git', 'gitlab.example.com/group/sub/docs'],
    ['git://github.com/org/docs.git', 'github.com/org/docs'],
    ['https://token@github.com/org/docs.git', 'github.com/org/docs'],
  ])('%s is %s', (url, normalised) => {
    expect(normaliseRepositoryUrl(url)).toBe(normalised);
  });

  it.each(['/srv/docs.git', 'file:///srv/docs.git', './docs', 'https://github.com/', 'not a url'])(
    '%s is no repository URL',
    (value) => {
      expect(normaliseRepositoryUrl(value)).toBeNull();
    },
  );
});

describe('matchRepository', () => {
  const candidates: RepositoryCandidate[] = [
    { match: { kind: 'content' }, repository: 'https://github.com/acme/docs.git' },
    { match: { kind: 'context', name: 'product' }, repository: 'git@github.com:acme/product.git' },
    { match: { kind: 'context', name: 'local' }, repository: '/srv/local.git' },
  ];

  it('matches by any of the payload’s URLs, ssh and https alike', () => {
    expect(
      matchRepository({ urls: ['https://github.com/ACME/Product.git'], fullName: null }, candidates),
    ).toEqual({
      kind: 'context',
      name: 'product',
    });
    expect(matchRepository({ urls: ['git@github.com:acme/docs.git'], fullName: 'x/y' }, candidates)).toEqual({
      kind: 'content',
    });
  });

  it('falls back on the full name when no URL matches (another host name for the instance)', () => {
    expect(
      matchRepository(
        { urls: ['https://github.internal/acme/product.git'], fullName: 'Acme/Product' },
        candidates,
      ),
    ).toEqual({ kind: 'context', name: 'product' });
  });

  it('prefers a URL match over an earlier candidate matching only by name', () => {
    const same: RepositoryCandidate[] = [
      { match: { kind: 'content' }, repository: 'https://gitlab.example.com/acme/docs.git' },
      { match: { kind: 'context', name: 'mirror' }, repository: 'https://github.com/acme/docs.git' },
    ];
    expect(matchRepository({ urls: ['https://github.com/acme/docs'], fullName: 'acme/docs' }, same)).toEqual({
      kind: 'context',
      name: 'mirror',
    });
  });

  it('matches nothing that is not the project’s, nor a local path', () => {
    expect(
      matchRepository(
        { urls: ['https://github.com/acme/website.git'], fullName: 'acme/website' },
        candidates,
      ),
    ).toBeNull();
    expect(matchRepository({ urls: [], fullName: 'srv/local' }, candidates)).toBeNull();
    expect(matchRepository({ urls: [], fullName: null }, candidates)).toBeNull();
    expect(
      matchRepository({ urls: ['https://github.com/acme/docs-old'], fullName: 'acme/docs-old' }, candidates),
    ).toBeNull();
  });
});
