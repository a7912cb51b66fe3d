/** Projects: a content repository on a code host, and how a job's work reaches it. */
import { type CheckFailurePolicy, DEFAULT_CHECK_TIMEOUT_SECONDS } from './checks.js';

export const CODE_HOSTS = ['local', 'github', 'gitlab', 'gitea'] as const;
export type CodeHostKind = (typeof CODE_HOSTS)[number];

/** `pull_request` opens a pull request per job; `push` commits straight to the base branch. */
export const PUBLISH_MODES = ['pull_request', 'push'] as const;
export type PublishMode = (typeof PUBLISH_MODES)[number];

/**
 * What checks a project's jobs pass before publishing (docs/architecture.md#the-runs-phases). Set by an admin only
 * (CLI or dashboard), never through the job API, a prompt or the repository.
 */
export interface ProjectChecks {
  /** Whether the built-in checks run. */
  builtInChecks: boolean;
  /** A shell command line run in the sandbox on a checkout of the job's tree, or null. */
  checkCommand: string | null;
  checkTimeoutSeconds: number;
  onCheckFailure: CheckFailurePolicy;
  /**
   * A shell command line run in the sandbox, with network, on the base tree before the agent writes
   * anything (e.g. `npm ci`); what it leaves in the checkout is laid into every later command's.
   */
  setupCommand: string | null;
  /** Whether the agent has the `run_command` tool (offline, in the sandbox, on the work so far). */
  agentCommands: boolean;
}

/** The check settings of a new project. */
export const DEFAULT_PROJECT_CHECKS: Readonly<ProjectChecks> = {
  builtInChecks: true,
  checkCommand: null,
  checkTimeoutSeconds: DEFAULT_CHECK_TIMEOUT_SECONDS,
  onCheckFailure: 'draft',
  setupCommand: null,
  agentCommands: false,
};

/**
 * Push mode: setup inputs (domain/setup-inputs.ts) that commits the service pushed to the base
 * branch changed, which no person has accepted yet. Until one does, a setup that would have to run
 * does not (`setup_needs_review`).
 */
export interface SetupReview {
  /** The setup inputs those commits changed, sorted. */
  files: string[];
  /** The jobs whose commits changed them. */
  jobIds: string[];
  /** When the first of them was pushed. */
  since: string;
}

/** A project as the rest of the service sees it. The host token stays encrypted and out of here. */
export interface Project extends ProjectChecks {
  id: string;
  name: string;
  repository: string;
  host: CodeHostKind;
  baseBranch: string;
  publish: PublishMode;
  allowedModels: string[] | null;
  defaultModel: string | null;
  hostSettings: Record<string, unknown>;
  hasHostToken: boolean;
  /** USD the project's jobs may spend per UTC day; past it, new runs are refused until the day ends. */
  dailyBudgetUsd: number | null;
  /** Archiving a job closes its open pull request on the code host (default true). */
  closePrOnArchive: boolean;
  /** The word that calls the service in a comment on the code host (`@agentjobs` by default). */
  mention: string;
  /** Setup inputs the service changed in push mode that wait for a person's review; null: none. */
  setupReview: SetupReview | null;
  /**
   * A pull request's description quotes text an automation rendered from a context repository
   * (diffs, commits, comments); default false: it names what triggered the run instead.
   */
  quoteContext: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a new project is made of; what is left out takes the defaults (`local`, `main`, …). */
export interface NewProject {
  name: string;
  repository: string;
  host?: CodeHostKind;
  baseBranch?: string;
  publish?: PublishMode;
  allowedModels?: string[] | null;
  defaultModel?: string | null;
  hostSettings?: Record<string, unknown>;
  builtInChecks?: boolean;
  checkCommand?: string | null;
  checkTimeoutSeconds?: number | null;
  onCheckFailure?: CheckFailurePolicy;
  setupCommand?: string | null;
  agentCommands?: boolean;
  dailyBudgetUsd?: number | null;
  closePrOnArchive?: boolean;
  mention?: string;
  quoteContext?: boolean;
}

/** The mention of a new project. */
export const DEFAULT_PROJECT_MENTION = '@agentjobs';

/** A mention: `@` and a code host's user name (letters, digits, `_` and `-`, at most 39 as on GitHub). */
export const MENTION_PATTERN = /^@[A-Za-z0-9_-]{1,39}$/;

/** Why `mention` is no mention, or null when it is one. */
export function mentionProblem(mention: string): string | null {
  return MENTION_PATTERN.test(mention)
    ? null
    : `must be @ followed by 1 to 39 letters, digits, _ or - (got "${mention}")`;
}
