/**
 * A project's automations and their runs (DESIGN section 3, automations). The scheduler's claim is
 * here too: a schedule's time is taken by moving `next_run_at` on with a conditional update, which
 * one process wins whatever the number racing for it (on PostgreSQL as on SQLite).
 */
import {
  type Automation,
  type AutomationRun,
  type AutomationTrigger,
  nextRunAt,
  type RunOutcome,
  type SkipReason,
  type TriggerType,
} from '../domain/automation.js';
import { ID_PATTERN, newId } from '../domain/ids.js';
import { redactSecrets, redactValue } from '../domain/redact.js';
import type { Db, Transaction } from './db.js';
import { readJob } from './jobs.js';
import type { AutomationRow, AutomationRunRow } from './schema.js';
import { outgoingEvents } from './webhooks/outbox.js';

/** A new automation, every field decided (the defaults are the caller's). */
export interface NewAutomation {
  projectId: string;
  name: string;
  enabled: boolean;
  trigger: AutomationTrigger;
  prompt: string;
  group: boolean;
  draft: boolean;
  model: string | null;
  baseRef: string | null;
  allowedAuthors: string[];
}

/** The fields an update may change. */
export type AutomationChange = Partial<Omit<NewAutomation, 'projectId'>>;

/** What a run is for: the automation, what started it, and the key that makes it one of a kind. */
export interface RunStart {
  automation: Pick<Automation, 'id' | 'projectId'>;
  trigger: { type: TriggerType; source: string };
  /** The schedule time it was for (unique per automation). */
  scheduledFor?: string;
  /** The code-host event it was for (unique per automation: one event, one run). */
  hostEventId?: string;
}

/** How a run ended. */
export interface RunEnd {
  outcome: RunOutcome;
  reason: SkipReason | null;
  jobId: string | null;
  /** What went wrong, in words (`invalid`, `error`); cut to a few hundred characters. */
  detail?: string | null;
}

/** A run to record in one step. */
export type NewAutomationRun = RunStart & RunEnd;

/** What `beginRun` did: started the run, or found the automation's run for that event or time. */
export type RunBegun =
  | { started: true; id: string }
  /** `run` is null when an earlier try began it and never settled it (its process stopped). */
  | { started: false; run: AutomationRun | null };

/** The outcome of a run begun and not settled yet: never listed, never sent. */
const PENDING = 'pending';
const DETAIL_MAX = 500;

export function toAutomation(row: AutomationRow): Automation {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    enabled: Number(row.enabled) === 1,
    trigger: JSON.parse(row.trigger) as AutomationTrigger,
    prompt: row.prompt,
    group: Number(row.group_runs) === 1,
    draft: Number(row.draft) === 1,
    model: row.model,
    baseRef: row.base_ref,
    allowedAuthors: JSON.parse(row.allowed_authors) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastRunAt: row.last_run_at,
    nextRunAt: row.next_run_at,
  };
}

export function toRun(row: AutomationRunRow): AutomationRun {
  return {
    id: row.id,
    automationId: row.automation_id,
    at: row.at,
    trigger: { type: row.trigger_type as TriggerType, source: row.source },
    outcome: row.outcome as RunOutcome,
    reason: row.reason as SkipReason | null,
    detail: row.detail,
    jobId: row.job_id,
  };
}

function runRow(
  start: RunStart,
  end: RunEnd | { outcome: typeof PENDING; reason: null; jobId: null },
  now: Date,
): AutomationRunRow {
  return {
    id: newId(),
    automation_id: start.automation.id,
    project_id: start.automation.projectId,
    at: now.toISOString(),
    trigger_type: start.trigger.type,
    source: start.trigger.source,
    scheduled_for: start.scheduledFor ?? null,
    host_event_id: start.hostEventId ?? null,
    ...endColumns(end),
  };
}

function endColumns(end: RunEnd | { outcome: typeof PENDING; reason: null; jobId: null }) {
  const detail = 'detail' in end ? (end.detail ?? null) : null;
  return {
    outcome: end.outcome,
    reason: end.reason,
    job_id: end.jobId,
    detail: detail === null ? null : redactSecrets(detail).slice(0, DETAIL_MAX),
  };
}

/** Inserts a run; false when the automation has its run for that event or schedule time already. */
async function insertRun(trx: Transaction, row: AutomationRunRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('automation_runs')
    .values(row)
    .onConflict((conflict) => conflict.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The automation's run for the event or schedule time of `start`. */
async function existingRun(trx: Transaction, start: RunStart): Promise<AutomationRunRow | undefined> {
  if (start.hostEventId === undefined && start.scheduledFor === undefined) return undefined;
  let query = trx.selectFrom('automation_runs').selectAll().where('automation_id', '=', start.automation.id);
  query =
    start.hostEventId !== undefined
      ? query.where('host_event_id', '=', start.hostEventId)
      : query.where('scheduled_for', '=', start.scheduledFor ?? '');
  return query.executeTakeFirst();
}

export function automationQueries(db: Db) {
  const emit = outgoingEvents(db);
  /** A run written with its outcome: the automation's last run and job, and the webhook event. */
  const settled = async (trx: Transaction, row: AutomationRunRow): Promise<AutomationRun> => {
    const run = toRun(row);
    const automation = await trx
      .updateTable('automations')
      .set({ last_run_at: row.at, ...(row.job_id ? { last_job_id: row.job_id } : {}) })
      .where('id', '=', row.automation_id)
      .returning(['id', 'name'])
      .executeTakeFirst();
    const job = row.job_id ? await readJob(trx, row.job_id) : null;
    await emit(trx, {
      projectId: row.project_id,
      jobId: row.job_id,
      type: 'automation.run',
      // The job quotes its prompt, and a prompt may hold a key.
      data: {
        run,
        automation: automation ?? { id: row.automation_id, name: '' },
        job: job && redactValue(job, redactSecrets),
      },
    });
    return run;
  };
  const rowOf = (projectId: string, automationId: string) =>
    db
      .read()
      .selectFrom('automations')
      .selectAll()
      .where('id', '=', automationId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();

  return {
    async create(input: NewAutomation, now = new Date()): Promise<Automation> {
      const at = now.toISOString();
      const row: AutomationRow = {
        id: newId(),
        project_id: input.projectId,
        name: input.name,
        enabled: input.enabled ? 1 : 0,
        trigger: JSON.stringify(input.trigger),
        prompt: input.prompt,
        group_runs: input.group ? 1 : 0,
        draft: input.draft ? 1 : 0,
        model: input.model,
        base_ref: input.baseRef,
        allowed_authors: JSON.stringify(input.allowedAuthors),
        last_job_id: null,
        last_head: null,
        created_at: at,
        updated_at: at,
        last_run_at: null,
        next_run_at: nextRunAt(input, now),
      };
      await db.writeStatement((executor) => executor.insertInto('automations').values(row).execute());
      return toAutomation(row);
    },

    /** The automation, or undefined when `automationId` names none in the project. */
    async get(projectId: string, automationId: string): Promise<Automation | undefined> {
      if (!ID_PATTERN.test(automationId)) return undefined;
      const row = await rowOf(projectId, automationId);
      return row ? toAutomation(row) : undefined;
    },

    /** The id of the latest job a run created or grouped into; null before any. */
    async lastJobId(projectId: string, automationId: string): Promise<string | null> {
      if (!ID_PATTERN.test(automationId)) return null;
      return (await rowOf(projectId, automationId))?.last_job_id ?? null;
    },

    async list(projectId: string): Promise<Automation[]> {
      const rows = await db
        .read()
        .selectFrom('automations')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('id')
        .execute();
      return rows.map(toAutomation);
    },

    /**
     * Changes the fields given; the next run time is worked out again from the new trigger (a
     * schedule enabled again runs at its next time, not for the times it missed while disabled).
     */
    async update(
      projectId: string,
      automationId: string,
      change: AutomationChange,
      now = new Date(),
    ): Promise<Automation | undefined> {
      const current = await this.get(projectId, automationId);
      if (!current) return undefined;
      const next = { ...current, ...change };
      const scheduleChanged =
        JSON.stringify(next.trigger) !== JSON.stringify(current.trigger) || next.enabled !== current.enabled;
      const at = now.toISOString();
      const row = await db.writeStatement((executor) =>
        executor
          .updateTable('automations')
          .set({
            name: next.name,
            enabled: next.enabled ? 1 : 0,
            trigger: JSON.stringify(next.trigger),
            prompt: next.prompt,
            group_runs: next.group ? 1 : 0,
            draft: next.draft ? 1 : 0,
            model: next.model,
            base_ref: next.baseRef,
            allowed_authors: JSON.stringify(next.allowedAuthors),
            updated_at: at,
            ...(scheduleChanged ? { next_run_at: nextRunAt(next, now) } : {}),
            // Enabled again or watching something else: the head seen then is its first (history
            // before it starts nothing), so the one it knew is forgotten.
            ...(scheduleChanged && next.enabled ? { last_head: null } : {}),
          })
          .where('id', '=', automationId)
          .where('project_id', '=', projectId)
          .returningAll()
          .executeTakeFirst(),
      );
      return row ? toAutomation(row) : undefined;
    },

    /** Deletes the automation and its runs; false when there was none. */
    async delete(projectId: string, automationId: string): Promise<boolean> {
      if (!ID_PATTERN.test(automationId)) return false;
      const result = await db.writeStatement((executor) =>
        executor
          .deleteFrom('automations')
          .where('id', '=', automationId)
          .where('project_id', '=', projectId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },

    /** Enabled schedules whose time has come, oldest first. */
    async due(now: Date, limit: number): Promise<Automation[]> {
      const rows = await db
        .read()
        .selectFrom('automations')
        .selectAll()
        .where('next_run_at', '<=', now.toISOString())
        .where('enabled', '=', 1)
        .orderBy('next_run_at')
        .limit(limit)
        .execute();
      return rows.map(toAutomation);
    },

    /** The earliest time any schedule falls due; null when none will. */
    async nextDue(): Promise<string | null> {
      const row = await db
        .read()
        .selectFrom('automations')
        .select((eb) => eb.fn.min('next_run_at').as('next'))
        .where('enabled', '=', 1)
        .executeTakeFirst();
      return (row?.next as string | null | undefined) ?? null;
    },

    /**
     * Takes the schedule time `due` of an automation by moving its next time on to `next`. Only
     * the process whose update finds `due` still there wins; every other gets false.
     */
    async claimScheduled(automationId: string, due: string, next: string | null): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .updateTable('automations')
          .set({ next_run_at: next })
          .where('id', '=', automationId)
          .where('next_run_at', '=', due)
          .where('enabled', '=', 1)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Takes `head` as the watched branch's new head; false when it was seen already (another
     * event, or another process, took it). Returns the head seen before it too.
     */
    async claimHead(
      automationId: string,
      head: string,
    ): Promise<{ claimed: boolean; previous: string | null }> {
      return db.write(async (trx) => {
        const row = await db
          .lockForUpdate(trx.selectFrom('automations').select('last_head').where('id', '=', automationId))
          .executeTakeFirst();
        if (!row || row.last_head === head) return { claimed: false, previous: row?.last_head ?? null };
        await trx
          .updateTable('automations')
          .set({ last_head: head })
          .where('id', '=', automationId)
          .execute();
        return { claimed: true, previous: row.last_head };
      });
    },

    /**
     * Gives back `head`, taken by a run that made no job: the head seen before it (`previous`)
     * is the automation's again, so the next change covers the commits in between. Nothing when
     * another change has moved the head on since.
     */
    async releaseHead(automationId: string, head: string, previous: string | null): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('automations')
          .set({ last_head: previous })
          .where('id', '=', automationId)
          .where('last_head', '=', head)
          .execute(),
      );
    },

    /** Every project's enabled automations that watch a branch (`code_change`, `content_change`): the poller's list. */
    async watching(): Promise<(Automation & { lastHead: string | null })[]> {
      const rows = await db
        .read()
        .selectFrom('automations')
        .selectAll()
        .where('enabled', '=', 1)
        .orderBy('project_id')
        .orderBy('id')
        .execute();
      return rows
        .map((row) => ({ ...toAutomation(row), lastHead: row.last_head }))
        .filter(({ trigger }) => trigger.type === 'code_change' || trigger.type === 'content_change');
    },

    /**
     * Sets the head an automation starts from when it has none yet (just made or enabled): the
     * poller's first look, which starts nothing. False when it knew one already.
     */
    async seedHead(automationId: string, head: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .updateTable('automations')
          .set({ last_head: head })
          .where('id', '=', automationId)
          .where('last_head', 'is', null)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) === 1;
    },

    /** The project's job whose pull request is at `url`, if a job opened it. */
    async jobIdByPullRequest(projectId: string, url: string): Promise<string | undefined> {
      const row = await db
        .read()
        .selectFrom('jobs')
        .select('id')
        .where('project_id', '=', projectId)
        .where('pr_link', '=', url)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row?.id;
    },

    /**
     * Begins a run: its row is written before its job is made, so a second try of the same event
     * (or schedule time) finds it and makes no second job. `settleRun` ends it; `dropRun` takes it
     * back when the try failed and the event will be tried again.
     */
    async beginRun(input: RunStart, now = new Date()): Promise<RunBegun> {
      const row = runRow(input, { outcome: PENDING, reason: null, jobId: null }, now);
      return db.write(async (trx) => {
        if (await insertRun(trx, row)) return { started: true, id: row.id };
        const existing = await existingRun(trx, input);
        return { started: false, run: existing && existing.outcome !== PENDING ? toRun(existing) : null };
      });
    },

    /** Ends a run begun with `beginRun`; see `recordRun` for what goes with it. */
    async settleRun(id: string, end: RunEnd, now = new Date()): Promise<AutomationRun> {
      return db.write(async (trx) => {
        const row = await trx
          .updateTable('automation_runs')
          .set({ ...endColumns(end), at: now.toISOString() })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return settled(trx, row);
      });
    },

    /** Takes back a run begun and not settled: its try failed, and the event will be tried again. */
    async dropRun(id: string): Promise<void> {
      await db.writeStatement((executor) =>
        executor.deleteFrom('automation_runs').where('id', '=', id).where('outcome', '=', PENDING).execute(),
      );
    },

    /**
     * Records a run in one step, and on the automation the time of its last run and its latest
     * job; the webhook event `automation.run` goes out with it (a skipped run too, so operators
     * can alert). When the automation already has its run for that event or schedule time, that
     * run is returned and nothing is written; one an earlier try left unsettled is settled so.
     */
    async recordRun(input: NewAutomationRun, now = new Date()): Promise<AutomationRun> {
      const row = runRow(input, input, now);
      return db.write(async (trx) => {
        if (await insertRun(trx, row)) return settled(trx, row);
        const existing = await existingRun(trx, input);
        if (!existing) throw new Error('an automation run clashed with no run');
        if (existing.outcome !== PENDING) return toRun(existing);
        const updated = await trx
          .updateTable('automation_runs')
          .set({ ...endColumns(input), at: row.at })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return settled(trx, updated);
      });
    },

    /** The runs that created or continued `jobId`, oldest first (the pull request lists them). */
    async runsOfJob(jobId: string, limit = 100): Promise<AutomationRun[]> {
      const rows = await db
        .read()
        .selectFrom('automation_runs')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('outcome', '!=', 'skipped')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toRun);
    },

    /** Runs newest first; `before` is the previous page's last run id. */
    async runs(
      automationId: string,
      options: { limit: number; before?: string },
    ): Promise<{ runs: AutomationRun[]; more: boolean }> {
      let query = db
        .read()
        .selectFrom('automation_runs')
        .selectAll()
        .where('automation_id', '=', automationId)
        .where('outcome', '!=', PENDING)
        .orderBy('id', 'desc')
        .limit(options.limit + 1);
      if (options.before) query = query.where('id', '<', options.before);
      const rows = await query.execute();
      return { runs: rows.slice(0, options.limit).map(toRun), more: rows.length > options.limit };
    },
  };
}
