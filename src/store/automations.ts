/**
 * A project's automations (docs/automations.md); their runs are in `automation-runs.ts`.
 * The scheduler's claim is here too: a schedule's time is taken by moving `next_run_at` on with a
 * conditional update, which one process wins whatever the number racing for it (on PostgreSQL as
 * on SQLite).
 */
import {
  type Automation,
  type AutomationNotify,
  type AutomationTrigger,
  nextRunAt,
} from '../domain/automation.js';
import { NO_NOTIFY } from '../domain/automation-slack.js';
import { ID_PATTERN, newId } from '../domain/ids.js';
import { automationRunQueries } from './automation-runs.js';
import type { Db } from './db.js';
import type { AutomationRow } from './schema.js';

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
  /** Nowhere when absent. */
  notify?: AutomationNotify | undefined;
}

/** The fields an update may change. */
export type AutomationChange = Partial<Omit<NewAutomation, 'projectId'>>;

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
    notify: row.notify
      ? { ...NO_NOTIFY, ...(JSON.parse(row.notify) as Partial<AutomationNotify>) }
      : NO_NOTIFY,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastRunAt: row.last_run_at,
    nextRunAt: row.next_run_at,
  };
}

export function automationQueries(db: Db) {
  return {
    ...automationRunQueries(db),
    ...automationReads(db),
    ...automationWrites(db),
    ...scheduleQueries(db),
    ...headQueries(db),
    ...groupingQueries(db),
  };
}

/** A `stop` on a job's pull request (docs/automations.md): grouping into the job, stopped for good. */
function groupingQueries(db: Db) {
  return {
    /** Stops runs from grouping into the job; a second stop keeps the first one's time. */
    async stopGrouping(jobId: string, now = new Date()): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('jobs')
          .set({ grouping_stopped_at: now.toISOString() })
          .where('id', '=', jobId)
          .where('grouping_stopped_at', 'is', null)
          .execute(),
      );
    },

    /** Whether a person said `stop` on the job's pull request. */
    async groupingStopped(jobId: string): Promise<boolean> {
      const row = await db
        .read()
        .selectFrom('jobs')
        .select('grouping_stopped_at')
        .where('id', '=', jobId)
        .executeTakeFirst();
      return (row?.grouping_stopped_at ?? null) !== null;
    },
  };
}

function rowOf(db: Db, projectId: string, automationId: string) {
  return db
    .read()
    .selectFrom('automations')
    .selectAll()
    .where('id', '=', automationId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
}

/** The automation, or undefined when `automationId` names none in the project. */
async function findAutomation(
  db: Db,
  projectId: string,
  automationId: string,
): Promise<Automation | undefined> {
  if (!ID_PATTERN.test(automationId)) return undefined;
  const row = await rowOf(db, projectId, automationId);
  return row ? toAutomation(row) : undefined;
}

/** Reading automations, and the job a pull request came from. */
function automationReads(db: Db) {
  return {
    /** The automation, or undefined when `automationId` names none in the project. */
    get: (projectId: string, automationId: string): Promise<Automation | undefined> =>
      findAutomation(db, projectId, automationId),

    /** The id of the latest job a run created or grouped into; null before any. */
    async lastJobId(projectId: string, automationId: string): Promise<string | null> {
      if (!ID_PATTERN.test(automationId)) return null;
      return (await rowOf(db, projectId, automationId))?.last_job_id ?? null;
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
  };
}

function newRow(input: NewAutomation, now: Date): AutomationRow {
  const at = now.toISOString();
  return {
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
    notify: input.notify?.slack ? JSON.stringify(input.notify) : null,
    notify_since: input.notify?.slack ? at : null,
  };
}

/** The notify columns: `notify_since` moves when the channel changes, so no earlier run is posted. */
function notifyColumns(
  notify: AutomationNotify,
  current: AutomationNotify,
  at: string,
): { notify: string | null; notify_since?: string | null } {
  const json = notify.slack ? JSON.stringify(notify) : null;
  if (current.slack === notify.slack) return { notify: json };
  return { notify: json, notify_since: notify.slack ? at : null };
}

/** Creating, changing and deleting automations. */
function automationWrites(db: Db) {
  return {
    async create(input: NewAutomation, now = new Date()): Promise<Automation> {
      const row = newRow(input, now);
      await db.writeStatement((executor) => executor.insertInto('automations').values(row).execute());
      return toAutomation(row);
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
      const current = await findAutomation(db, projectId, automationId);
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
            ...notifyColumns(next.notify ?? NO_NOTIFY, current.notify, at),
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
  };
}

/** The scheduler's queries: what is due, and taking a schedule's time. */
function scheduleQueries(db: Db) {
  return {
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
  };
}

/** The branch heads that automations watching a branch have seen: the poller's queries. */
function headQueries(db: Db) {
  return {
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
  };
}
