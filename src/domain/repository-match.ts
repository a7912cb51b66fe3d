/**
 * Which of a project's repositories a code host's event is about (docs/api.md, the code
 * host's webhook): the payload names its repository by clone URLs and a full name, the project
 * by the URLs or paths it was given. Pure, so the receiver and the tests share it.
 */
import type { RepositoryMatch } from './host-event.js';

/** How a payload names its repository. */
export interface RepositoryIdentifiers {
  /** Clone and web URLs the payload gives: https, ssh (`git@host:owner/name.git`), git://. */
  urls: string[];
  /** `owner/name` (GitLab: `group/subgroup/name`). */
  fullName: string | null;
}

/** One of the project's repositories: the content repository or a context repository. */
export interface RepositoryCandidate {
  match: RepositoryMatch;
  /** As the project holds it: a clone URL, or a local path (which no host's payload names). */
  repository: string;
}

/**
 * A repository URL reduced to `host/path`: the scheme, user, port, `.git` suffix and trailing
 * slashes dropped, everything lower case. GitHub, GitLab and Gitea treat owner and repository
 * names without regard to case, and the same repository's https and ssh URLs then agree (the
 * port is dropped, as an instance's ssh and https ports differ). Null for what is not a URL.
 */
export function normaliseRepositoryUrl(value: string): string | null {
  const text = value.trim();
  let host: string;
  let path: string;
  // scp-like ssh: `git@host:owner/name.git` (no scheme, a colon before the path).
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(text);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && scp?.[1] && scp[2]) {
    host = scp[1];
    path = scp[2];
  } else {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (!['http:', 'https:', 'ssh:', 'git:', 'git+ssh:'].includes(url.protocol) || !url.hostname) return null;
    host = url.hostname;
    path = decodeURIComponent(url.pathname);
  }
  const trimmed = path
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/^\/+/, '');
  if (!trimmed) return null;
  return `${host}/${trimmed}`.toLowerCase();
}

/** The `owner/name` part of a normalised URL. */
const pathOf = (normalised: string) => normalised.slice(normalised.indexOf('/') + 1);

/**
 * The first candidate the payload's repository is: one whose URL is one of the payload's URLs
 * (host and path), else one whose path is the payload's full name (an instance reached under
 * another host name than the one the project was given). Candidates are tried in order, so the
 * content repository, given first, wins a tie. Null when none is.
 */
export function matchRepository(
  payload: RepositoryIdentifiers,
  candidates: readonly RepositoryCandidate[],
): RepositoryMatch | null {
  const urls = new Set(payload.urls.map(normaliseRepositoryUrl).filter((url): url is string => url !== null));
  const keyed = candidates.map((candidate) => ({
    candidate,
    key: normaliseRepositoryUrl(candidate.repository),
  }));
  const byUrl = keyed.find(({ key }) => key !== null && urls.has(key));
  if (byUrl) return byUrl.candidate.match;
  const fullName = payload.fullName
    ?.trim()
    .replace(/^\/+|\/+$/g, '')
    .toLowerCase();
  if (!fullName) return null;
  const byName = keyed.find(({ key }) => key !== null && pathOf(key) === fullName);
  return byName ? byName.candidate.match : null;
}
