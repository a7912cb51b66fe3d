/**
 * Context repositories (docs/architecture.md#the-runs-phases): other repositories, usually the product's source, that a
 * project's agent reads and never writes. Set only by an admin.
 */
import type { CodeHostKind } from './project.js';

/** A project names at most this many. */
export const MAX_CONTEXT_REPOSITORIES = 10;

/** A context repository's name: what the agent's read tools take as `repository`. */
export const CONTEXT_REPOSITORY_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** A context repository as the rest of the service sees it; its token stays sealed and out of here. */
export interface ContextRepository {
  projectId: string;
  name: string;
  /** A clone URL (`https://…`, `file://…`) or a local path. */
  repository: string;
  /** The branch read; null: the repository's default branch. */
  ref: string | null;
  /** The code host its token is for (`local` for a path or a `file://` URL). */
  host: CodeHostKind;
  hasToken: boolean;
  createdAt: string;
}

/** What one run read of a context repository: the job's `contextRepositories` field. */
export interface ContextRepositoryRead {
  name: string;
  ref: string;
  commit: string;
}
