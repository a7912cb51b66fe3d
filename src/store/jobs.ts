import type { AutomationJobTrigger } from '../domain/automation.js';
import type { CheckRun } from '../domain/checks.js';
import type { ContextRepositoryRead } from '../domain/context-repository.js';
import { AppError, isJobFailureCode, type JobFailureCode } from '../domain/errors.js';
import { ID_PATTERN, newId } from '../domain/ids.js';
import {
  DEFAULT_MODEL_ID,
  type Job,
  type JobPhase,
  type JobStatus,
  jobBranch,
  transition,
} from '../domain/job.js';
import type { RunCommand } from '../domain/pull-request-command.js';
import { JOBS_CHANNEL, PR_CLOSES_CHANNEL } from './channels.js';
import type { Db, Transaction } from './db.js';
import { appendFirstEvent, eventAppender } from './events.js';
import { type Claim, completeReservation } from './idempotency.js';
import { deleteProgressMessages } from './queue/progress.js';
import type { JobRow } from './schema.js';
import { refuseOverDailyBudget, releaseReservation } from './spend.js';
import { webhookOutbox } from './webhooks/outbox.js';

export interface NewJob {
  projectId: string;
  prompt: string;
  model: string;
  baseRef: string;
  repository: string;
  draft: boolean;
  /** What started the job, when an automation made it. */
  trigger?: AutomationJobTrigger;
  /** What its pull request quotes of the prompt unless the project quotes context repositories' text. */
  pullRequestPrompt?: string;
  /** Ties the job to the request's idempotency reservation in the same transaction. */
  idempotency?: Claim;
  /**
   * Refuses the create (`too_many_active_jobs`) when the project already has this many active
   * jobs. Counted inside the create's transaction, so concurrent creates cannot all slip under
   * the cap. 0 or absent: no cap.
   */
  maxActive?: number;
}

export interface ListJobsOptions {
  status?: JobStatus;
  limit: number;
  /** Only jobs older than this id (the previous page's last). */
  before?: string;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    status: row.status as JobStatus,
    source: { repository: row.source_repository, ref: row.source_ref },
    // Jobs stored before the model was always recorded have none; they ran on the default.
    model: row.model ?? DEFAULT_MODEL_ID,
    prLink: row.pr_link,
    createdAt: row.created_at,
    archivedAt: row.archived_at,
    projectId: row.project_id,
    prompt: row.prompt,
    baseRef: row.base_ref,
    phase: row.phase as JobPhase | null,
    title: row.title,
    summary: row.summary,
    error: row.error_code ? { code: jobFailureCode(row.error_code), message: row.error_message ?? '' } : null,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    usage: {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      cachedInputTokens: Number(row.cached_input_tokens),
      steps: Number(row.steps),
      costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
    },
    filesChanged: Number(row.files_changed),
    checks: row.checks ? (JSON.parse(row.checks) as CheckRun) : null,
    draft: Number(row.draft) === 1,
    contextRepositories: row.context_repositories
      ? (JSON.parse(row.context_repositories) as ContextRepositoryRead[])
      : [],
    trigger: row.trigger ? (JSON.parse(row.trigger) as AutomationJobTrigger) : null,
  };
}

/** The job as it is inside `trx` (after the transaction's own changes): for the webhook events of a change. */
export async function readJob(trx: Transaction, jobId: string): Promise<Job> {
  return toJob(await trx.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow());
}

/** A project's active jobs, counted no further than `atMost` (all a cap check needs). */
async function countActiveJobs(executor: Transaction, projectId: string, atMost: number): Promise<number> {
  const { count } = await executor
    .selectFrom((eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('status', '=', 'active')
        .limit(atMost)
        .as('active'),
    )
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Throws `too_many_active_jobs` when the project is at its cap; runs in the create's transaction. */
async function refuseOverCap(db: Db, trx: Transaction, projectId: string, cap: number): Promise<void> {
  // SQLite serializes write transactions. PostgreSQL runs them side by side, so concurrent creates
  // for one project take turns on its row; the job inserts' foreign-key checks do not conflict.
  if (!db.capabilities.serializedWrites) {
    await db
      .lockForUpdate(trx.selectFrom('projects').select('id').where('id', '=', projectId), { noKey: true })
      .execute();
  }
  if ((await countActiveJobs(trx, projectId, cap)) < cap) return;
  throw new AppError(
    'too_many_active_jobs',
    `This project already has ${cap} active jobs, its limit; wait for some to finish.`,
    {
      retryAfterSeconds: 30,
      limit: { limit: cap, remaining: 0, resetSeconds: 30 },
    },
  );
}

const jobNotFound = (jobId: string) => new AppError('job_not_found', `No job ${jobId} in this project.`);

/**
 * Reads a job inside a write transaction, locked on PostgreSQL so that a worker completing it at
 * the same moment waits (or is waited for) instead of racing a follow-up or an archive. SQLite's
 * `BEGIN IMMEDIATE` already serializes writers.
 */
async function getRow(db: Db, trx: Transaction, projectId: string, jobId: string): Promise<JobRow> {
  if (!ID_PATTERN.test(jobId)) throw jobNotFound(jobId);
  const query = trx
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', jobId)
    .where('project_id', '=', projectId);
  const row = await db.lockForUpdate(query).executeTakeFirst();
  if (!row) throw jobNotFound(jobId);
  return row;
}

/** What the job's writes record besides the row: its events and its webhooks. */
interface Writers {
  appendEvent: ReturnType<typeof eventAppender>;
  emitWebhook: ReturnType<typeof webhookOutbox>;
}

/** The row of a new job, queued, as `create` inserts it. */
function newJobRow(input: NewJob, id: string, now: string): JobRow {
  return {
    id,
    project_id: input.projectId,
    status: 'active',
    phase: 'queued',
    prompt: input.prompt,
    model: input.model,
    base_ref: input.baseRef,
    source_repository: input.repository,
    source_ref: jobBranch(id, input.prompt),
    draft: input.draft ? 1 : 0,
    pr_link: null,
    title: null,
    summary: null,
    error_code: null,
    error_message: null,
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cost_usd: null,
    steps: 0,
    files_changed: 0,
    checks: null,
    // Its first event is written with it (`appendFirstEvent`).
    event_seq: 1,
    attempt: 0,
    lease_owner: null,
    lease_expires_at: null,
    available_at: now,
    created_at: now,
    updated_at: now,
    completed_at: null,
    archived_at: null,
    pr_close_due_at: null,
    pr_close_attempts: 0,
    context_repositories: null,
    trigger: input.trigger ? JSON.stringify(input.trigger) : null,
    pull_request_prompt: input.pullRequestPrompt ?? null,
    grouping_stopped_at: null,
  };
}

export function jobQueries(db: Db) {
  const writers = { appendEvent: eventAppender(db), emitWebhook: webhookOutbox(db) };
  const { emitWebhook } = writers;
  return {
    /** Creates the job, its first message and its first event in one transaction. */
    async create(input: NewJob): Promise<Job> {
      const now = new Date().toISOString();
      const id = newId();
      const row = newJobRow(input, id, now);
      return db.write(async (trx) => {
        if (input.maxActive) await refuseOverCap(db, trx, input.projectId, input.maxActive);
        await refuseOverDailyBudget(trx, input.projectId, new Date(now));
        await trx.insertInto('jobs').values(row).execute();
        await trx
          .insertInto('job_messages')
          .values({ id: newId(), job_id: id, content: input.prompt, created_at: now, delivered_at: null })
          .execute();
        await appendFirstEvent(db, trx, id, 'status', { status: 'active', phase: 'queued' }, now);
        if (input.idempotency) await completeReservation(trx, input.idempotency, id);
        await db.notify(JOBS_CHANNEL, id);
        const job = toJob(row);
        await emitWebhook(trx, 'job.created', job);
        return job;
      });
    },

    /**
     * The job, or undefined when `jobId` names none in the project. A string that is not an id we
     * issue names no row and is answered without a query: callers pass ids straight from URLs, and
     * PostgreSQL refuses some strings (a NUL byte) outright.
     */
    async get(projectId: string, jobId: string): Promise<Job | undefined> {
      if (!ID_PATTERN.test(jobId)) return undefined;
      const row = await db
        .read()
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', jobId)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return row && toJob(row);
    },

    /** What the job's pull request quotes of its prompt when the project quotes no context repository's text; null: the prompt. */
    async pullRequestPrompt(jobId: string): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('jobs')
        .select('pull_request_prompt')
        .where('id', '=', jobId)
        .executeTakeFirst();
      return row?.pull_request_prompt ?? null;
    },

    /** Newest first. Returns up to `limit + 1` rows' worth of knowledge: the page and whether more exist. */
    async list(projectId: string, options: ListJobsOptions): Promise<{ jobs: Job[]; more: boolean }> {
      let query = db.read().selectFrom('jobs').selectAll().where('project_id', '=', projectId);
      if (options.status) query = query.where('status', '=', options.status);
      if (options.before) query = query.where('id', '<', options.before);
      const rows = await query
        .orderBy('id', 'desc')
        .limit(options.limit + 1)
        .execute();
      return { jobs: rows.slice(0, options.limit).map(toJob), more: rows.length > options.limit };
    },

    /**
     * Adds a follow-up prompt. On an active job it waits for the agent's next step; on a completed
     * or failed job it makes the job active again, queued for a worker, on the same branch.
     */
    followUp: (projectId: string, jobId: string, content: string, command?: RunCommand): Promise<Job> =>
      followUp(db, writers, projectId, jobId, content, command),

    /** The job's last prompt: its newest message that is not a command's (its first prompt at least). */
    async lastPrompt(jobId: string): Promise<string | undefined> {
      const row = await db
        .read()
        .selectFrom('job_messages')
        .select('content')
        .where('job_id', '=', jobId)
        .where('command', 'is', null)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row?.content;
    },

    /** Archives the job; a second archive returns it unchanged. A running worker sees the status and stops. */
    archive: (projectId: string, jobId: string): Promise<Job> => archive(db, writers, projectId, jobId),
  };
}

/**
 * Adds a follow-up prompt. On an active job it waits for the agent's next step (a `command`'s
 * message waits for the job's next run); on a completed or failed job it makes the job active
 * again, queued for a worker, on the same branch.
 */
async function followUp(
  db: Db,
  { appendEvent, emitWebhook }: Writers,
  projectId: string,
  jobId: string,
  content: string,
  command: RunCommand | undefined,
): Promise<Job> {
  return db.write(async (trx) => {
    const row = await getRow(db, trx, projectId, jobId);
    const status = transition(row.status as JobStatus, 'follow_up');
    const now = new Date().toISOString();
    // A follow-up of a finished job starts a run; one for a running job only joins it.
    if (row.status !== 'active') await refuseOverDailyBudget(trx, projectId, new Date(now));
    await trx
      .insertInto('job_messages')
      .values({
        id: newId(),
        job_id: jobId,
        content,
        created_at: now,
        delivered_at: null,
        command: command ?? null,
      })
      .execute();
    await appendEvent(trx, jobId, 'message', { role: 'user', text: content }, now);
    if (row.status !== 'active') {
      await trx
        .updateTable('jobs')
        .set({
          status,
          phase: 'queued',
          error_code: null,
          error_message: null,
          completed_at: null,
          available_at: now,
          updated_at: now,
        })
        .where('id', '=', jobId)
        .execute();
      await appendEvent(trx, jobId, 'status', { status, phase: 'queued' }, now);
      await db.notify(JOBS_CHANNEL, jobId);
      const job = toJob(await getRow(db, trx, projectId, jobId));
      await emitWebhook(trx, 'job.resumed', job);
      return job;
    }
    await trx.updateTable('jobs').set({ updated_at: now }).where('id', '=', jobId).execute();
    return toJob(await getRow(db, trx, projectId, jobId));
  });
}

/** Archives the job; a second archive returns it unchanged. A running worker sees the status and stops. */
async function archive(
  db: Db,
  { appendEvent, emitWebhook }: Writers,
  projectId: string,
  jobId: string,
): Promise<Job> {
  return db.write(async (trx) => {
    const row = await getRow(db, trx, projectId, jobId);
    if (row.status === 'archived') return toJob(row);
    const status = transition(row.status as JobStatus, 'archive');
    const now = new Date().toISOString();
    // Its pull request is closed on the host later (`pullRequestCloses`), so that the archive
    // answers at once even when the host is down; noted here, in the same transaction.
    const closePr =
      row.pr_link !== null &&
      (await trx
        .selectFrom('projects')
        .select('close_pr_on_archive')
        .where('id', '=', projectId)
        .executeTakeFirst()
        .then((project) => Number(project?.close_pr_on_archive ?? 0) === 1));
    await trx
      .updateTable('jobs')
      .set({
        status,
        phase: null,
        archived_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
        ...(closePr ? { pr_close_due_at: now, pr_close_attempts: 0 } : {}),
      })
      .where('id', '=', jobId)
      .execute();
    // Its run stops without writing anything more, so its reservation and progress go here.
    await releaseReservation(trx, jobId);
    await deleteProgressMessages(trx, jobId);
    await appendEvent(trx, jobId, 'status', { status }, now);
    // Wakes a closer at once (after the commit) rather than at its next poll.
    if (closePr) await db.notify(PR_CLOSES_CHANNEL, jobId);
    const job = toJob(await getRow(db, trx, projectId, jobId));
    await emitWebhook(trx, 'job.archived', job);
    return job;
  });
}

/** A stored failure code, or `internal_error` for one this version no longer makes. */
function jobFailureCode(code: string): JobFailureCode {
  return isJobFailureCode(code) ? code : 'internal_error';
}
