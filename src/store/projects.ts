import { type CheckFailurePolicy, DEFAULT_CHECK_TIMEOUT_SECONDS } from '../domain/checks.js';
import { newHookSecret } from '../domain/hook-secret.js';
import { ID_PATTERN, newId } from '../domain/ids.js';
import {
  type CodeHostKind,
  DEFAULT_PROJECT_MENTION,
  type NewProject,
  type Project,
  type PublishMode,
  type SetupReview,
} from '../domain/project.js';
import type { Db } from './db.js';
import type { ProjectRow } from './schema.js';
import type { SecretBox } from './secrets.js';

/** A code-host token to store with a project, sealed under `secrets`. */
export interface HostToken {
  token: string;
  secrets: SecretBox;
}

/**
 * What a hook secret is sealed for: the project, and that it is its hook secret, so the sealed
 * value cannot be passed off as the project's host token (or the other way round).
 */
const hookContext = (projectId: string) => `${projectId}:hook-secret`;

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    repository: row.repository,
    host: row.host as CodeHostKind,
    baseBranch: row.base_branch,
    publish: row.publish as PublishMode,
    allowedModels: row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null,
    defaultModel: row.default_model,
    hostSettings: row.host_settings ? (JSON.parse(row.host_settings) as Record<string, unknown>) : {},
    hasHostToken: row.host_token_encrypted !== null,
    builtInChecks: Number(row.built_in_checks) === 1,
    checkCommand: row.check_command,
    checkTimeoutSeconds: row.check_timeout_seconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS,
    onCheckFailure: row.on_check_failure as CheckFailurePolicy,
    setupCommand: row.setup_command ?? null,
    agentCommands: Number(row.agent_commands ?? 0) === 1,
    dailyBudgetUsd: row.daily_budget_usd === null ? null : Number(row.daily_budget_usd),
    closePrOnArchive: Number(row.close_pr_on_archive ?? 1) === 1,
    mention: row.mention ?? DEFAULT_PROJECT_MENTION,
    setupReview: row.setup_review ? (JSON.parse(row.setup_review) as SetupReview) : null,
    quoteContext: Number(row.quote_context ?? 0) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function projectQueries(db: Db) {
  return { ...projectRecords(db), ...setupReviewQueries(db), ...projectSecretQueries(db) };
}

/** The project, or undefined; a string that is not an id we issue is answered without a query (see jobs.get). */
async function findProject(db: Db, id: string): Promise<Project | undefined> {
  if (!ID_PATTERN.test(id)) return undefined;
  const row = await db.read().selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toProject(row);
}

function newRow(input: NewProject, hostToken: HostToken | undefined): ProjectRow {
  const now = new Date().toISOString();
  const id = newId();
  return {
    id,
    name: input.name,
    repository: input.repository,
    host: input.host ?? 'local',
    base_branch: input.baseBranch ?? 'main',
    publish: input.publish ?? 'pull_request',
    allowed_models: input.allowedModels ? JSON.stringify(input.allowedModels) : null,
    default_model: input.defaultModel ?? null,
    host_settings: input.hostSettings ? JSON.stringify(input.hostSettings) : null,
    host_token_encrypted: hostToken ? hostToken.secrets.seal(hostToken.token, id) : null,
    hook_secret_sealed: null,
    built_in_checks: input.builtInChecks === false ? 0 : 1,
    check_command: input.checkCommand ?? null,
    check_timeout_seconds: input.checkTimeoutSeconds ?? null,
    on_check_failure: input.onCheckFailure ?? 'draft',
    setup_command: input.setupCommand ?? null,
    agent_commands: input.agentCommands ? 1 : 0,
    daily_budget_usd: input.dailyBudgetUsd ?? null,
    close_pr_on_archive: input.closePrOnArchive === false ? 0 : 1,
    mention: input.mention ?? DEFAULT_PROJECT_MENTION,
    setup_review: null,
    quote_context: input.quoteContext ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
}

/** The columns `update` sets: the time, the token when given, and every field of `patch` given. */
function changedColumns(
  id: string,
  patch: Partial<NewProject>,
  hostToken: { token: string | null; secrets: SecretBox } | undefined,
): Partial<ProjectRow> {
  const set: Partial<ProjectRow> = { updated_at: new Date().toISOString() };
  if (hostToken)
    set.host_token_encrypted = hostToken.token === null ? null : hostToken.secrets.seal(hostToken.token, id);
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.repository !== undefined) set.repository = patch.repository;
  if (patch.host !== undefined) set.host = patch.host;
  if (patch.baseBranch !== undefined) set.base_branch = patch.baseBranch;
  if (patch.publish !== undefined) set.publish = patch.publish;
  if (patch.allowedModels !== undefined)
    set.allowed_models = patch.allowedModels ? JSON.stringify(patch.allowedModels) : null;
  if (patch.defaultModel !== undefined) set.default_model = patch.defaultModel;
  if (patch.builtInChecks !== undefined) set.built_in_checks = patch.builtInChecks ? 1 : 0;
  if (patch.checkCommand !== undefined) set.check_command = patch.checkCommand;
  if (patch.checkTimeoutSeconds !== undefined) set.check_timeout_seconds = patch.checkTimeoutSeconds;
  if (patch.onCheckFailure !== undefined) set.on_check_failure = patch.onCheckFailure;
  if (patch.setupCommand !== undefined) set.setup_command = patch.setupCommand;
  if (patch.agentCommands !== undefined) set.agent_commands = patch.agentCommands ? 1 : 0;
  if (patch.dailyBudgetUsd !== undefined) set.daily_budget_usd = patch.dailyBudgetUsd;
  if (patch.closePrOnArchive !== undefined) set.close_pr_on_archive = patch.closePrOnArchive ? 1 : 0;
  if (patch.mention !== undefined) set.mention = patch.mention;
  if (patch.quoteContext !== undefined) set.quote_context = patch.quoteContext ? 1 : 0;
  if (patch.hostSettings !== undefined)
    set.host_settings = Object.keys(patch.hostSettings).length ? JSON.stringify(patch.hostSettings) : null;
  return set;
}

/** Creating, reading and changing projects. */
function projectRecords(db: Db) {
  const { kysely } = db;
  return {
    /** Creates a project; with `hostToken`, its token is sealed into the same row (one statement). */
    async create(input: NewProject, hostToken?: HostToken): Promise<Project> {
      const row = newRow(input, hostToken);
      await kysely.insertInto('projects').values(row).execute();
      return toProject(row);
    },

    /** The project, or undefined; a string that is not an id we issue is answered without a query (see jobs.get). */
    get: (id: string): Promise<Project | undefined> => findProject(db, id),

    /**
     * Changes a project's settings, and with `hostToken` its token (null removes it), in one
     * statement. Returns the project as it is now, or undefined when there is none.
     */
    async update(
      id: string,
      patch: Partial<NewProject>,
      hostToken?: { token: string | null; secrets: SecretBox },
    ): Promise<Project | undefined> {
      const set = changedColumns(id, patch, hostToken);
      await kysely.updateTable('projects').set(set).where('id', '=', id).execute();
      return findProject(db, id);
    },

    async list(): Promise<Project[]> {
      const rows = await db.read().selectFrom('projects').selectAll().orderBy('id', 'desc').execute();
      return rows.map(toProject);
    },
  };
}

/** The setup inputs a push-mode project holds for a person's review. */
function setupReviewQueries(db: Db) {
  return {
    /**
     * Push mode: records that a commit of job `jobId` changes the setup inputs `files`, adding to
     * what already waits for review, in one write. False when there is no such project.
     */
    async holdSetup(id: string, change: { files: string[]; jobId: string }): Promise<boolean> {
      return db.write(async (trx) => {
        const row = await db
          .lockForUpdate(trx.selectFrom('projects').select('setup_review').where('id', '=', id))
          .executeTakeFirst();
        if (!row) return false;
        const now = new Date().toISOString();
        const held = row.setup_review ? (JSON.parse(row.setup_review) as SetupReview) : null;
        const review: SetupReview = {
          files: [...new Set([...(held?.files ?? []), ...change.files])].sort(),
          jobIds: [...new Set([...(held?.jobIds ?? []), change.jobId])],
          since: held?.since ?? now,
        };
        await trx
          .updateTable('projects')
          .set({ setup_review: JSON.stringify(review), updated_at: now })
          .where('id', '=', id)
          .execute();
        return true;
      });
    },

    /**
     * A person accepted the setup inputs waiting for review: the next setup runs them. Returns
     * what was accepted (null when nothing waited), or undefined when there is no such project.
     */
    async acceptSetup(id: string): Promise<SetupReview | null | undefined> {
      return db.write(async (trx) => {
        const row = await db
          .lockForUpdate(trx.selectFrom('projects').select('setup_review').where('id', '=', id))
          .executeTakeFirst();
        if (!row) return undefined;
        if (!row.setup_review) return null;
        await trx
          .updateTable('projects')
          .set({ setup_review: null, updated_at: new Date().toISOString() })
          .where('id', '=', id)
          .execute();
        return JSON.parse(row.setup_review) as SetupReview;
      });
    },
  };
}

/** The project's sealed secrets: its code-host token and its hook secret. */
function projectSecretQueries(db: Db) {
  const { kysely } = db;
  return {
    /**
     * Stores the project's code-host token sealed under `secrets` (bound to the project's id), or
     * removes it with null. Returns false when there is no such project.
     */
    async setHostToken(id: string, token: string | null, secrets: SecretBox): Promise<boolean> {
      const result = await kysely
        .updateTable('projects')
        .set({
          host_token_encrypted: token === null ? null : secrets.seal(token, id),
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * The project's code-host token in plain text, or null when it has none. For the code hosts
     * only: the value must never reach a log, an event, an error or a response.
     */
    async hostToken(id: string, secrets: SecretBox): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('projects')
        .select('host_token_encrypted')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.host_token_encrypted ? secrets.open(row.host_token_encrypted, id) : null;
    },

    /**
     * Makes the project a new hook secret, sealed under `secrets` (bound to the project's id, and
     * apart from its host token), in place of any it had: the old one stops working at once.
     * Returns the secret, the one time it is shown, or undefined when there is no such project.
     */
    async rotateHookSecret(id: string, secrets: SecretBox): Promise<string | undefined> {
      const secret = newHookSecret();
      const result = await kysely
        .updateTable('projects')
        .set({
          hook_secret_sealed: secrets.seal(secret, hookContext(id)),
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0 ? secret : undefined;
    },

    /** Whether the project has a hook secret, without opening it. */
    async hasHookSecret(id: string): Promise<boolean> {
      if (!ID_PATTERN.test(id)) return false;
      const row = await db
        .read()
        .selectFrom('projects')
        .select('hook_secret_sealed')
        .where('id', '=', id)
        .executeTakeFirst();
      return Boolean(row?.hook_secret_sealed);
    },

    /**
     * The project's hook secret in plain text, or null when none was made. For the receiver's
     * signature check only: never a log, an event, an error or a response.
     */
    async hookSecret(id: string, secrets: SecretBox): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('projects')
        .select('hook_secret_sealed')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.hook_secret_sealed ? secrets.open(row.hook_secret_sealed, hookContext(id)) : null;
    },
  };
}
