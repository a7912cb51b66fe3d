/** Projects: a content repository on a code host, and how a job's work reaches it. */

export const CODE_HOSTS = ['local', 'github', 'gitlab', 'gitea'] as const;
export type CodeHostKind = (typeof CODE_HOSTS)[number];

/** `pull_request` opens a pull request per job; `push` commits straight to the base branch. */
export const PUBLISH_MODES = ['pull_request', 'push'] as const;
export type PublishMode = (typeof PUBLISH_MODES)[number];

/** A project as the rest of the service sees it. The host token stays encrypted and out of here. */
export interface Project {
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
  dailyBudgetUsd?: number | null;
}
