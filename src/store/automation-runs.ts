/**
 * An automation's runs (docs/api.md, Automations): every event it saw and what came of it,
 * one run per event or schedule time (docs/security.md, "One event, one run"): a run is begun
 * before its job is made, under a unique key, and settled with its outcome; the webhook event
 * `automation.run` goes out with the outcome.
 */
import type { Automation, AutomationRun, RunOutcome, SkipReason, TriggerType } from '../domain/automation.js';
import { newId } from '../domain/ids.js';
import { redactSecrets, redactValue } from '../domain/redact.js';
import type { Db, Transaction } from './db.js';
import { withStatuses } from './host-pull-requests.js';
import { readJob } from './jobs.js';
import type { AutomationRunRow } from './schema.js';
import { type EmitOutgoingEvent, outgoingEvents } from './webhooks/outbox.js';

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
    // As the run was recorded: a job made or continued is at work. Lists read the current one.
    status: row.outcome === 'skipped' || row.outcome === 'failed' ? row.outcome : 'running',
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

export function automationRunQueries(db: Db) {
  return { ...runWrites(db), ...runReads(db) };
}

/** A run written with its outcome: the automation's last run and job, and the webhook event. */
async function settled(
  emit: EmitOutgoingEvent,
  trx: Transaction,
  row: AutomationRunRow,
): Promise<AutomationRun> {
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
}

/** Beginning, settling, dropping and recording runs. */
function runWrites(db: Db) {
  const emit = outgoingEvents(db);
  return {
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
        return settled(emit, trx, row);
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
        if (await insertRun(trx, row)) return settled(emit, trx, row);
        const existing = await existingRun(trx, input);
        if (!existing) throw new Error('an automation run clashed with no run');
        if (existing.outcome !== PENDING) return toRun(existing);
        const updated = await trx
          .updateTable('automation_runs')
          .set({ ...endColumns(input), at: row.at })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return settled(emit, trx, updated);
      });
    },
  };
}

/** Reading runs. */
function runReads(db: Db) {
  return {
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

    /** Runs newest first, each with its current status; `before` is the previous page's last run id. */
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
      const page = rows.slice(0, options.limit);
      const runs = page[0] ? await withStatuses(db, page.map(toRun), page[0].project_id) : [];
      return { runs, more: rows.length > options.limit };
    },
  };
}
