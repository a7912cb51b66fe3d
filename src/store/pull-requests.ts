/**
 * The local code host's pull requests (docs/code-hosts.md): records numbered per project, one per
 * head branch. Opening one for a branch that has one updates and reuses it, so a retried run or a
 * follow-up never makes a second.
 */
import { newId } from '../domain/ids.js';
import type { OpenPullRequest, PullRequest, PullRequestState } from '../domain/pull-request.js';
import type { Db, Transaction } from './db.js';
import type { PullRequestRow } from './schema.js';

export function toPullRequest(row: PullRequestRow): PullRequest {
  return {
    id: row.id,
    projectId: row.project_id,
    number: Number(row.number),
    jobId: row.job_id,
    headBranch: row.head_branch,
    baseBranch: row.base_branch,
    title: row.title,
    body: row.body,
    state: row.state as PullRequestState,
    draft: Number(row.draft) === 1,
    headSha: row.head_sha,
    baseSha: row.base_sha,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mergedAt: row.merged_at,
    closedAt: row.closed_at,
  };
}

/** PostgreSQL's unique_violation, or SQLite's constraint error: two writers raced for a number or a branch. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function pullRequestQueries(db: Db) {
  return { ...pullRequestWrites(db), ...pullRequestReads(db) };
}

/**
 * Opens the pull request of `headBranch`, or updates the one it has; retried when another writer
 * took the number or opened this branch's pull request meanwhile.
 */
async function openOrUpdate(
  db: Db,
  input: OpenPullRequest,
): Promise<{ pullRequest: PullRequest; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.write(async (trx) => {
        const at = new Date().toISOString();
        const existing = trx
          .selectFrom('pull_requests')
          .selectAll()
          .where('project_id', '=', input.projectId)
          .where('head_branch', '=', input.headBranch);
        const found = await db.lockForUpdate(existing).executeTakeFirst();
        if (found) return { pullRequest: await reopen(trx, found, input, at), created: false };
        return { pullRequest: await openNew(db, trx, input, at), created: true };
      });
    } catch (error) {
      // Another writer took the number or opened this branch's pull request: look again.
      if (attempt >= 5 || !isUniqueViolation(error)) throw error;
    }
  }
}

/** The branch's pull request, open again with the new head, title and body. */
async function reopen(
  trx: Transaction,
  found: PullRequestRow,
  input: OpenPullRequest,
  at: string,
): Promise<PullRequest> {
  const update = {
    title: input.title,
    body: input.body,
    head_sha: input.headSha,
    base_sha: input.baseSha ?? null,
    job_id: input.jobId,
    state: 'open',
    merged_at: null,
    closed_at: null,
    updated_at: at,
  };
  await trx.updateTable('pull_requests').set(update).where('id', '=', found.id).execute();
  return toPullRequest({ ...found, ...update });
}

/** A new pull request, numbered after the project's last. */
async function openNew(db: Db, trx: Transaction, input: OpenPullRequest, at: string): Promise<PullRequest> {
  // Numbers are handed out one writer at a time per project (the project row's lock): with
  // many runs opening pull requests at once, retrying on a taken number would not end.
  await db.lockForUpdate(trx.selectFrom('projects').select('id').where('id', '=', input.projectId)).execute();
  const { last } = await trx
    .selectFrom('pull_requests')
    .select((eb) => eb.fn.max('number').as('last'))
    .where('project_id', '=', input.projectId)
    .executeTakeFirstOrThrow();
  const row: PullRequestRow = {
    id: newId(),
    project_id: input.projectId,
    number: Number(last ?? 0) + 1,
    job_id: input.jobId,
    head_branch: input.headBranch,
    base_branch: input.baseBranch,
    title: input.title,
    body: input.body,
    state: 'open',
    draft: input.draft ? 1 : 0,
    head_sha: input.headSha,
    base_sha: input.baseSha ?? null,
    created_at: at,
    updated_at: at,
    merged_at: null,
    closed_at: null,
  };
  await trx.insertInto('pull_requests').values(row).execute();
  return toPullRequest(row);
}

/** Opening, updating and finishing pull requests. */
function pullRequestWrites(db: Db) {
  const { kysely } = db;
  return {
    /**
     * Opens the pull request of `headBranch`, or updates the one it has (new head, title and body;
     * a closed or merged one opens again, since the branch moved on). `created` says which.
     */
    openOrUpdate: (input: OpenPullRequest): Promise<{ pullRequest: PullRequest; created: boolean }> =>
      openOrUpdate(db, input),

    /**
     * Marks an open pull request merged (after the merge landed in the repository) or closed.
     * Returns it, or undefined when it does not exist or is not open.
     */
    async finish(
      projectId: string,
      number: number,
      state: 'merged' | 'closed',
    ): Promise<PullRequest | undefined> {
      const at = new Date().toISOString();
      const update =
        state === 'merged'
          ? { state, merged_at: at, closed_at: null, updated_at: at }
          : { state, closed_at: at, updated_at: at };
      const row = await kysely
        .updateTable('pull_requests')
        .set(update)
        .where('project_id', '=', projectId)
        .where('number', '=', number)
        .where('state', '=', 'open')
        .returningAll()
        .executeTakeFirst();
      return row && toPullRequest(row);
    },
  };
}

/** Reading pull requests. */
function pullRequestReads(db: Db) {
  return {
    async get(projectId: string, number: number): Promise<PullRequest | undefined> {
      const row = await db
        .read()
        .selectFrom('pull_requests')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('number', '=', number)
        .executeTakeFirst();
      return row && toPullRequest(row);
    },

    async getByBranch(projectId: string, headBranch: string): Promise<PullRequest | undefined> {
      const row = await db
        .read()
        .selectFrom('pull_requests')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('head_branch', '=', headBranch)
        .executeTakeFirst();
      return row && toPullRequest(row);
    },

    /** The state of the pull request of each of `jobIds` that has one, for a list of jobs. */
    async statesOfJobs(projectId: string, jobIds: readonly string[]): Promise<Map<string, PullRequestState>> {
      if (jobIds.length === 0) return new Map();
      const rows = await db
        .read()
        .selectFrom('pull_requests')
        .select(['job_id', 'state'])
        .where('project_id', '=', projectId)
        .where('job_id', 'in', [...jobIds])
        .execute();
      return new Map(rows.map((row) => [row.job_id as string, row.state as PullRequestState]));
    },

    /** Newest first; `before`: only numbers below it (the previous page's last). */
    async list(
      projectId: string,
      options: { state?: PullRequestState; limit: number; before?: number },
    ): Promise<{ pullRequests: PullRequest[]; more: boolean }> {
      let query = db.read().selectFrom('pull_requests').selectAll().where('project_id', '=', projectId);
      if (options.state) query = query.where('state', '=', options.state);
      if (options.before !== undefined) query = query.where('number', '<', options.before);
      const rows = await query
        .orderBy('number', 'desc')
        .limit(options.limit + 1)
        .execute();
      return {
        pullRequests: rows.slice(0, options.limit).map(toPullRequest),
        more: rows.length > options.limit,
      };
    },
  };
}
export type PullRequestQueries = ReturnType<typeof pullRequestQueries>;
