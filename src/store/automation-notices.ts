/**
 * The notices of what became of automations' runs (docs/automations.md#slack): what happened is
 * read from the database (a job's pull request, its failure, a merge the local host or a code
 * host's event recorded), each happening is recorded once as a notice before it is posted (unique
 * by automation, happening and subject), and the notifier claims unsent notices under a lease.
 * Whatever process sees a happening first records it; every other one finds it recorded.
 */
import type { Automation } from '../domain/automation.js';
import type { NoticeDraft, NoticeHappening } from '../domain/automation-slack.js';
import { newId } from '../domain/ids.js';
import { toAutomation } from './automations.js';
import type { Db } from './db.js';

/** How far back happenings are looked for: one older than this, never seen (the service was down), is not posted. */
export const NOTICE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** An automation that posts notices, and since when. */
export interface NoticeWatcher {
  automation: Automation;
  /** Nothing that happened before is posted: when its channel was set, or the window's start. */
  since: string;
}

/** A job of an automation, as far as its notices need it. */
export interface NoticeJob {
  id: string;
  status: string;
  prLink: string | null;
  completedAt: string | null;
  error: string | null;
}

/** A notice the notifier holds. */
export interface ClaimedNotice {
  id: string;
  channel: string;
  text: string;
  createdAt: string;
  attempts: number;
  /** Whether an earlier try ended without saying whether it posted (its process stopped). */
  unsure: boolean;
}

export function automationNoticeQueries(db: Db) {
  return { ...jobReads(db), ...mergeReads(db), ...recording(db), ...claiming(db) };
}

/** The later of two ISO times. */
const later = (a: string, b: string) => (a > b ? a : b);

/** What the finder reads: the watchers, their jobs and their failed runs. */
function jobReads(db: Db) {
  return {
    /** Every automation with a notify channel. */
    async watchers(now = new Date()): Promise<NoticeWatcher[]> {
      const windowStart = new Date(now.getTime() - NOTICE_WINDOW_MS).toISOString();
      const rows = await db
        .read()
        .selectFrom('automations')
        .selectAll()
        .where('notify_since', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        automation: toAutomation(row),
        since: later(row.notify_since ?? '', windowStart),
      }));
    },

    /** The automation's jobs that finished, or whose pull request was merged, since `since`. */
    async jobsSince(automationId: string, since: string): Promise<NoticeJob[]> {
      const rows = await db
        .read()
        .selectFrom('jobs')
        .select(['id', 'status', 'pr_link', 'completed_at', 'error_message'])
        .where(
          'id',
          'in',
          db
            .read()
            .selectFrom('automation_runs')
            .select('job_id')
            .where('automation_id', '=', automationId)
            .where('job_id', 'is not', null)
            .$narrowType<{ job_id: string }>(),
        )
        .where('completed_at', '>=', since)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        status: row.status,
        prLink: row.pr_link,
        completedAt: row.completed_at,
        error: row.error_message,
      }));
    },

    /** The automation's runs that failed before they made a job, since `since`. */
    async failedRunsSince(
      automationId: string,
      since: string,
    ): Promise<{ id: string; detail: string | null }[]> {
      return db
        .read()
        .selectFrom('automation_runs')
        .select(['id', 'detail'])
        .where('automation_id', '=', automationId)
        .where('outcome', '=', 'failed')
        .where('at', '>=', since)
        .orderBy('id')
        .execute();
    },
  };
}

/** The merges the finder reads, and the notices recorded already. */
function mergeReads(db: Db) {
  return {
    /**
     * The automation's pull requests merged since `since`, by URL: the local host's (`pull_requests`)
     * and those a code host's recorded event reported merged in the content repository.
     */
    async mergedSince(
      automation: Pick<Automation, 'id' | 'projectId'>,
      since: string,
    ): Promise<{ jobId: string; url: string; mergedAt: string }[]> {
      const jobsOfAutomation = db
        .read()
        .selectFrom('automation_runs')
        .select('job_id')
        .where('automation_id', '=', automation.id)
        .where('job_id', 'is not', null)
        .$narrowType<{ job_id: string }>();
      const local = await db
        .read()
        .selectFrom('pull_requests')
        .innerJoin('jobs', 'jobs.id', 'pull_requests.job_id')
        .select(['jobs.id as jobId', 'jobs.pr_link as url', 'pull_requests.merged_at as mergedAt'])
        .where('pull_requests.state', '=', 'merged')
        .where('pull_requests.merged_at', '>=', since)
        .where('jobs.id', 'in', jobsOfAutomation)
        .execute();
      const events = await db
        .read()
        .selectFrom('host_events')
        .select(['event', 'received_at'])
        .where('project_id', '=', automation.projectId)
        .where('received_at', '>=', since)
        .where('event', 'like', '%"kind":"pull_request_merged"%')
        .execute();
      const reported = new Map<string, string>();
      for (const row of events) {
        const event = JSON.parse(row.event) as {
          kind?: string;
          url?: string;
          repository?: { kind?: string };
        };
        if (event.kind === 'pull_request_merged' && event.repository?.kind === 'content' && event.url)
          reported.set(event.url, row.received_at);
      }
      const remote =
        reported.size === 0
          ? []
          : await db
              .read()
              .selectFrom('jobs')
              .select(['id', 'pr_link'])
              .where('pr_link', 'in', [...reported.keys()])
              .where('id', 'in', jobsOfAutomation)
              .execute();
      return [
        ...local.flatMap((row) =>
          row.url && row.mergedAt ? [{ ...row, url: row.url, mergedAt: row.mergedAt }] : [],
        ),
        ...remote.flatMap((row) =>
          row.pr_link ? [{ jobId: row.id, url: row.pr_link, mergedAt: reported.get(row.pr_link) ?? '' }] : [],
        ),
      ];
    },

    /** The subjects of the automation's notices of `happening` among `subjects`: the ones recorded already. */
    async recordedSubjects(
      automationId: string,
      happening: NoticeHappening,
      subjects: readonly string[],
    ): Promise<Set<string>> {
      if (subjects.length === 0) return new Set();
      const rows = await db
        .read()
        .selectFrom('automation_notices')
        .select('subject')
        .where('automation_id', '=', automationId)
        .where('happening', '=', happening)
        .where('subject', 'in', [...subjects])
        .execute();
      return new Set(rows.map((row) => row.subject));
    },
  };
}

/** Recording notices. */
function recording(db: Db) {
  return {
    /** Records the notices not recorded yet (one insert each that does nothing on a clash). Returns how many are new. */
    async record(drafts: readonly NoticeDraft[], now = new Date()): Promise<number> {
      let added = 0;
      // A millisecond apart, so that notices recorded together are posted in the order given.
      for (const [index, draft] of drafts.entries()) {
        const result = await db.writeStatement((executor) =>
          executor
            .insertInto('automation_notices')
            .values({
              id: newId(),
              automation_id: draft.automationId,
              project_id: draft.projectId,
              job_id: draft.jobId,
              happening: draft.happening,
              subject: draft.subject,
              channel: draft.channel,
              text: draft.text,
              created_at: new Date(now.getTime() + index).toISOString(),
              claimed_until: null,
              attempts: 0,
              last_error: null,
              sent_at: null,
              gave_up_at: null,
            })
            .onConflict((conflict) => conflict.doNothing())
            .executeTakeFirst(),
        );
        added += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
      return added;
    },
  };
}

/** The notifier's claim of notices, and what came of each try. */
function claiming(db: Db) {
  return {
    /**
     * Up to `limit` unsent notices, oldest first, that no other notifier holds, now held by this
     * one for `leaseMs`. A try that ended neither way (its process stopped while it posted) is
     * `unsure`: the notifier looks in the channel before it posts again.
     */
    async claim(limit: number, leaseMs = 60_000, now = new Date()): Promise<ClaimedNotice[]> {
      const at = now.toISOString();
      const until = new Date(now.getTime() + leaseMs).toISOString();
      return db.write(async (trx) => {
        const due = trx
          .selectFrom('automation_notices')
          .select(['id', 'attempts', 'last_error'])
          .where('sent_at', 'is', null)
          .where('gave_up_at', 'is', null)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit);
        const held = await db.lockForUpdate(due, { skipLocked: true }).execute();
        if (held.length === 0) return [];
        // A try that failed left its error; one that posted, `sent_at`: a try that left neither stopped mid-way.
        const unsure = new Set(
          held.filter((row) => Number(row.attempts) > 0 && row.last_error === null).map((row) => row.id),
        );
        const rows = await trx
          .updateTable('automation_notices')
          .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1), last_error: null }))
          .where(
            'id',
            'in',
            held.map((row) => row.id),
          )
          .returning(['id', 'channel', 'text', 'created_at', 'attempts'])
          .execute();
        return rows
          .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
          .map((row) => ({
            id: row.id,
            channel: row.channel,
            text: row.text,
            createdAt: row.created_at,
            attempts: Number(row.attempts),
            unsure: unsure.has(row.id),
          }));
      });
    },

    async markSent(id: string, now = new Date()): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('automation_notices')
          .set({ sent_at: now.toISOString(), claimed_until: null })
          .where('id', '=', id)
          .execute(),
      );
    },

    /** Leaves a notice to be claimed again at `retryAt`, with why this try failed. */
    async retryLater(id: string, error: string, retryAt: Date): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('automation_notices')
          .set({ claimed_until: retryAt.toISOString(), last_error: error.slice(0, 500) })
          .where('id', '=', id)
          .where('sent_at', 'is', null)
          .execute(),
      );
    },

    /** Stops trying a notice that failed every try; it stays, with its last error, for an operator. */
    async giveUp(id: string, error: string, now = new Date()): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('automation_notices')
          .set({ gave_up_at: now.toISOString(), claimed_until: null, last_error: error.slice(0, 500) })
          .where('id', '=', id)
          .execute(),
      );
    },

    /** The notices of an automation, oldest first (the tests' and an operator's view). */
    async list(automationId: string) {
      return db
        .read()
        .selectFrom('automation_notices')
        .selectAll()
        .where('automation_id', '=', automationId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
